-- Implicit arguments are inserted and solved at every use.
def twice {a : Type} (f : a -> a) (x : a) : a = f (f x)

def pairUp {a : Type} {b : Type} (x : a) (y : b) : Pair a b = (x, y)

def main = (twice (\n -> n * 3) 2, twice (\s -> s ++ "!") "hey", pairUp True 1.5)
