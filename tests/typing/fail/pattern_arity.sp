def f (m : Maybe Int) : Int =
  match m with
  | Nothing -> 0
  | Just x y -> x

def main = f Nothing
