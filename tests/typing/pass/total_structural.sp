-- `total def` (issue 31): structural recursion on one parameter, on two
-- lexicographically (Ackermann), mutual recursion (`even`/`odd`), implicit
-- parameters, and prelude functions that are total themselves (`map`).
data Nat = Z | S Nat
data Void = Absurd Void

total def plus (m : Nat) (n : Nat) : Nat =
  match m with
  | Z -> n
  | S k -> S (plus k n)

total def ack (m : Nat) (n : Nat) : Nat =
  match m with
  | Z -> S n
  | S k -> match n with
    | Z -> ack k (S Z)
    | S j -> ack k (ack m j)

total def len {a : Type} (xs : List a) : Nat =
  match xs with
  | [] -> Z
  | Cons _ rest -> S (len rest)

total def mapN (f : Nat -> Nat) (xs : List Nat) : List Nat = map f xs

total def even (n : Nat) : Bool =
  match n with
  | Z -> True
  | S m -> odd m

total def odd (n : Nat) : Bool =
  match n with
  | Z -> False
  | S m -> even m

def toInt (n : Nat) : Int =
  match n with
  | Z -> 0
  | S m -> 1 + toInt m

def main = (toInt (plus (S Z) (S (S Z))), toInt (ack (S Z) (S Z)), toInt (len [1, 2, 3]), even (S (S Z)))
