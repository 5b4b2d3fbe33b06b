-- Type aliases are definitions of type Type.
def Name : Type = String

def Age : Type = Int

def Person : Type = Pair Name Age

def Table (a : Type) : Type = List (Pair Name a)

def greet (p : Person) : Name = "hi " ++ fst p

def ages : Table Age = [("ann", 31), ("bob", 42)]

def main = (greet ("ann", 31), map snd ages, (snd ("x", 3) : Age) + 1)
