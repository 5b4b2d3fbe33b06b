-- Tuple, unit and list patterns.
def swap {a : Type} {b : Type} (p : Pair a b) : Pair b a =
  match p with
  | (x, y) -> (y, x)

def first3 (t : Pair Int (Pair Int Int)) : Int =
  match t with
  | (a, b, c) -> a * 100 + b * 10 + c

def shape {a : Type} (xs : List a) : String =
  match xs with
  | [] -> "empty"
  | [x] -> "one"
  | [x, y] -> "two"
  | Cons x rest -> "more"

def unit (u : Unit) : Int =
  match u with
  | () -> 0

def sumPairs (xs : List (Pair Int Int)) : Int =
  match xs with
  | [] -> 0
  | Cons (a, b) rest -> a + b + sumPairs rest

def main = (swap (1, "a"), first3 (1, 2, 3), map shape [[], [1], [1, 2], [1, 2, 3]], unit (), sumPairs [(1, 2), (3, 4)])
