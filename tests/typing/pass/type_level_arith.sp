-- Definitional equality evaluates type-level functions (plus) on the machine.
def plus (m : Nat) (n : Nat) : Nat =
  match m with
  | Z -> n
  | S k -> S (plus k n)

def Vec (n : Nat) (a : Type) : Type =
  match n with
  | Z -> Unit
  | S m -> Pair a (Vec m a)

def two : Nat = S (S Z)

def v3 : Vec (plus two (S Z)) Int = (1, 2, 3, ())

def vappend (m : Nat) (n : Nat) {a : Type} : Vec m a -> Vec n a -> Vec (plus m n) a =
  match m with
  | Z -> \xs ys -> ys
  | S k -> \xs ys -> (fst xs, vappend k n (snd xs) ys)

def main = (v3, vappend two two (1, 2, ()) (3, 4, ()))
