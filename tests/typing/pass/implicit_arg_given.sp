-- An implicit argument given explicitly in braces reaches the body at run time.
def f {n : Int} (x : Int) : Int = n + x

def pick {a : Type} (x : a) (y : a) : a = y

def main : Pair Int String = (f {10} 5, pick {String} "no" "yes")
