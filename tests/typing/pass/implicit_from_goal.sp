-- Implicit arguments solved from the expected type or from later arguments.
def empty {a : Type} : List a = []

def none {a : Type} : Maybe a = Nothing

def xs : List Int = empty

def pairOf {a : Type} {b : Type} (f : a -> b) (x : a) : Pair a b = (x, f x)

def main = (Cons 1 xs, (none : Maybe String), pairOf showInt 3, pairOf (\s -> strLength s) "four")
