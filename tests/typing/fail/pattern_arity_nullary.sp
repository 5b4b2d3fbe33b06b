def f (m : Maybe Int) : Int =
  match m with
  | Nothing x -> 0
  | Just x -> x

def main = f Nothing
