-- A runtime error while a type is evaluated is reported as what it is, where it
-- happens, with the type being evaluated: not as a type mismatch.
def F (n : Int) : Type = if 1 / n == 0 then Int else String

def x : F 0 = 3
