def f (xs : List Int) : Int =
  match xs with
  | (a, b) -> a

def main = f [1]
