-- Two applications of one type function are compared by their arguments before
-- either is unfolded (issue 31): `vlength v2` learns the length from `v2`'s type,
-- which unfolds to nested pairs, and `Fin ?m` meets `Fin (S k)` likewise. When the
-- arguments disagree, both sides are unfolded after all (`Vect Int one` is
-- `Vect Int (S Z)`).
data Nat = Z | S Nat
data Unit = MkUnit
data Void = Absurd Void

def Vect (a : Type) (n : Nat) : Type =
  match n with
  | Z -> Unit
  | S m -> Pair a (Vect a m)

def Fin (n : Nat) : Type =
  match n with
  | Z -> Void
  | S m -> Maybe (Fin m)

def vlength {a : Type} {n : Nat} (v : Vect a n) : Nat = n

def bound {n : Nat} (i : Fin n) : Nat = n

def toInt (n : Nat) : Int =
  match n with
  | Z -> 0
  | S m -> 1 + toInt m

def one : Nat = S Z

def v2 : Vect Int (S (S Z)) = (1, (2, MkUnit))

def v1 : Vect Int one = (7, MkUnit)

def v1again : Vect Int (S Z) = v1

def Const (a : Type) (n : Nat) : Type = a

def atZero : Const Int Z = 5

def atOne : Const Int (S Z) = atZero

def lastOfThree : Fin (S (S (S Z))) = Just (Just Nothing)

def main = (toInt (vlength v2), toInt (vlength v1again), toInt (bound lastOfThree), atOne)
