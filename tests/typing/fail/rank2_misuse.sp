-- The argument must work for every type a, so it cannot use +.
def g (f : {a : Type} -> a -> a) : Int = f 1

def main = g (\x -> x + 1)
