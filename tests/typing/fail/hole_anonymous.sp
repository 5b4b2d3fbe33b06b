def g {a : Type} (xs : List a) (k : a -> Int) : Int = ?

def main = 1
