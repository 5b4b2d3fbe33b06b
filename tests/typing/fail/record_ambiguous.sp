record A = { x : Int }
record B = { x : Int }

def main = { x = 1 }
