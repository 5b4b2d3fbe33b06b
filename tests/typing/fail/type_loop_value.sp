-- A value-level function that loops, used in a type: the step limit stops it.
def f (n : Int) : Int = f n

def x : (if f 1 == 1 then Int else String) = 1

def main = x
