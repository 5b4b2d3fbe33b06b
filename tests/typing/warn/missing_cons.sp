def f (xs : List Int) : Int =
  match xs with
  | [] -> 0
  | [x] -> x

def main = f [1]
