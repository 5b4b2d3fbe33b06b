-- LANGUAGE.md section 5: Vec and replicate.
def Vec (n : Nat) (a : Type) : Type =
  match n with
  | Z -> Unit
  | S m -> Pair a (Vec m a)

def replicate (n : Nat) {a : Type} (x : a) : Vec n a =
  match n with
  | Z -> ()
  | S m -> (x, replicate m x)

def main = replicate (S (S Z)) "hi"
