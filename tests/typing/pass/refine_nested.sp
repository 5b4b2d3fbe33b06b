-- Refinement through a nested match on the predecessor.
def Shape (n : Nat) : Type =
  match n with
  | Z -> Bool
  | S m -> (match m with
           | Z -> Int
           | S k -> String)

def make (n : Nat) : Shape n =
  match n with
  | Z -> True
  | S m -> (match m with
           | Z -> 1
           | S k -> "many")

def main = (make Z, make (S Z), make (S (S (S Z))))
