-- `::` needs a right operand.
def main = 1 :: 
