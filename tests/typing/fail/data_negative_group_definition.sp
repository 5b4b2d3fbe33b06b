-- `Floors (S m)` is `Tower m -> Int`: `Tower` to the left of an arrow, through a
-- definition of its group that does not unfold.
data Tower (n : Nat) = Base | Up (Floors n)
def Floors (n : Nat) : Type = match n with
  | Z -> Unit
  | S m -> Tower m -> Int
