-- Functions over Type 1: a type is a value of a type in Type 1.
def idT1 (A : Type 1) (x : A) : A = x

def Self : Type = idT1 Type Int

def Arrow (A : Type) (B : Type) : Type = A -> B

def applyArrow (f : Arrow Int String) : String = f 3

def main = ((4 : Self), applyArrow showInt, (Type : Type 2) == (Type : Type 2) || True)
