-- A test that fails inside a list made over a range fails at its place, when the
-- cell that needs it is needed.
def firstPositive (xs : List Int) : Int =
  match xs with
  | [] -> 0
  | Cons x _ -> x

def main = firstPositive (filter (\x -> 10 / (x - 5) > 0) (range 0 10))
