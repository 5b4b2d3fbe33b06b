-- Field types are evaluated before the positivity check: an alias hides nothing.
def Fn (a : Type) : Type = a -> Int

data Bad = MkBad (Fn Bad)
