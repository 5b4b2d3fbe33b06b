def inc (x : Int) : Int = x + 1

def main = inc {Int} 1
