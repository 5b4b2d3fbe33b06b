-- Types defined through themselves only strictly positively are accepted (issue 31):
-- under a match on a parameter (LANGUAGE.md 5's `Vec`), as the argument of a data
-- type that holds its parameter positively, and as the result of a function type.
data Nat = Z | S Nat

def Vec (n : Nat) (a : Type) : Type =
  match n with
  | Z -> Unit
  | S m -> Pair a (Vec m a)

def Rose : Type = List Rose

def Lazy : Type = Maybe (Unit -> Lazy)

def width (r : Rose) : Int = length r

def steps (l : Lazy) : Int =
  match l with
  | Nothing -> 0
  | Just next -> 1 + steps (next ())

def v : Vec (S (S Z)) Int = (1, (2, ()))

def main = (v, width [[], [[]]], steps (Just (\u -> Just (\w -> Nothing))))
