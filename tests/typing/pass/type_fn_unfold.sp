-- F (S m) must unfold to F m (one step of a recursive type-level function whose
-- result is again stuck on a variable).
def F (n : Nat) : Type =
  match n with
  | Z -> String
  | S m -> F m

def y (m : Nat) (v : F m) : F (S m) = v

def g (n : Nat) : F n =
  match n with
  | Z -> "end"
  | S m -> g m

def main = (y Z "a", g (S (S Z)))
