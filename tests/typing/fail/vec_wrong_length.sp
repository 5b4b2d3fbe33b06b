def Vec (n : Nat) (a : Type) : Type =
  match n with
  | Z -> Unit
  | S m -> Pair a (Vec m a)

def replicate (n : Nat) {a : Type} (x : a) : Vec n a =
  match n with
  | Z -> ()
  | S m -> (x, replicate m x)

def two : Vec (S (S Z)) Int = replicate (S Z) 1

def main = two
