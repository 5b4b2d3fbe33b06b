-- `_` asks the checker to infer a term.
def ident (A : Type) (x : A) : A = x

def xs : List _ = [1, 2, 3]

def p : Pair _ String = (True, "t")

def main = (ident _ 5, ident _ "s", xs, p, length {_} [1])
