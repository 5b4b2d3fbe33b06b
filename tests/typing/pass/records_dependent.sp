-- A dependent record: a later field's type names an earlier field (a Σ type).
def Vec (n : Nat) (a : Type) : Type =
  match n with
  | Z -> Unit
  | S m -> Pair a (Vec m a)

record Sized = { n : Nat, items : Vec n Int }

def two : Sized = { n = S (S Z), items = (1, (2, ())) }

def size (x : Sized) : Int =
  match x with
  | { n = Z, .. } -> 0
  | { n = S m, .. } -> 1 + natToInt m

def main = (two.items, size two, { two | items = (3, (4, ())) })
