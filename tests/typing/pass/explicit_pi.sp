-- A dependent function type with an explicit type argument.
def ident (A : Type) (x : A) : A = x

def apply (f : (A : Type) -> A -> A) : Pair Int String = (f Int 3, f String "x")

def main = (ident Int 5, ident String "five", apply ident)
