def f (m : Maybe Int) : Int =
  match m with
  | Nothing -> 0
  | Jst x -> x

def main = f Nothing
