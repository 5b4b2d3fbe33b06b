-- A type computed from an Int by an if; used at concrete values.
def Code (n : Int) : Type = if n == 0 then String else Int

def zeroIsText : Code 0 = "zero"

def oneIsNum : Code 1 = 100

def main = (zeroIsText, oneIsNum + 1)
