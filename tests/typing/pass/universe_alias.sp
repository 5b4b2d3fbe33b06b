-- A universe alias types a type parameter: T unfolds to Type (issue 16).
def T : Type 1 = Type

def f (A : T) (x : A) : A = x

def Big : Type 2 = Type 1

def g (A : Big) : Type 1 = A

def main = (f Int 3, f String "s")
