-- `H` passes its parameter to the left of an arrow in its recursive call.
def H (a : Type) (n : Nat) : Type = match n with
  | Z -> a
  | S m -> H (a -> Int) m
data T (n : Nat) = Leaf | MkT (H (T Z) n)
