-- The right operand of `::` is a list of the left operand's type.
def main = 1 :: ["a"]
