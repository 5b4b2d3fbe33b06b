-- A `total` definition covers every case, calls no `error`, and uses only total
-- definitions (issue 31).
data Nat = Z | S Nat

total def pred (n : Nat) : Nat =
  match n with
  | S m -> m

def predOrError (n : Nat) : Nat =
  match n with
  | Z -> error "no predecessor"
  | S m -> m

total def usesPartial (n : Nat) : Nat = predOrError n

def main = 1
