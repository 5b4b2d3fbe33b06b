def Vec (n : Nat) (a : Type) : Type =
  match n with
  | Z -> Unit
  | S m -> Pair a (Vec m a)

def bad : Vec (S Z) Int = (1, (2, ()))

def main = bad
