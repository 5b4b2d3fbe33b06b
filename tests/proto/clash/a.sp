def helper (n : Int) : Int = n + 1

def length (n : Int) : Int = n * 2

def main : Int = 0

def fromA : Int = helper 1 + length 2 + main
