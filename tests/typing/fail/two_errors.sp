def a : Int = "one"

def b : String = 2

def main = 3
