-- A type alias with parameters built from another type-level function.
def Vec (n : Nat) (a : Type) : Type =
  match n with
  | Z -> Unit
  | S m -> Pair a (Vec m a)

def Matrix (r : Nat) (c : Nat) : Type = Vec r (Vec c Int)

def m22 : Matrix (S (S Z)) (S (S Z)) = ((1, 2, ()), (3, 4, ()), ())

def trace (m : Matrix (S (S Z)) (S (S Z))) : Int = fst (fst m) + fst (snd (fst (snd m)))

def main = (trace m22, m22)
