def inc (x : Int) : Int = x + 1

def main = inc 1 2
