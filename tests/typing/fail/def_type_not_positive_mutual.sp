-- The same through another definition, and through a group of two.
data Void = Absurd Void

def Neg (a : Type) : Type = a -> Void

def Bad : Type = Neg Bad

def A : Type = List B

def B : Type = A -> Int

def main = 1
