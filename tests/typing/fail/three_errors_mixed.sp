def a : Int = missingName

def b (x : Int) : Bool = x

def c = 1 + "x"

def main = 3
