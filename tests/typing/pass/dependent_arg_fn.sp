-- A parameter whose type is a dependent function type; a lambda checked against it.
def Vec (n : Nat) (a : Type) : Type =
  match n with
  | Z -> Unit
  | S m -> Pair a (Vec m a)

def replicate (n : Nat) {a : Type} (x : a) : Vec n a =
  match n with
  | Z -> ()
  | S m -> (x, replicate m x)

def atTwo (f : (n : Nat) -> Vec n Int) : Vec (S (S Z)) Int = f (S (S Z))

def main = (atTwo (\n -> replicate n 0), atTwo (\k -> replicate k 7))
