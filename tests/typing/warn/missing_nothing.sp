def f (m : Maybe Int) : Int =
  match m with
  | Just x -> x

def main = f (Just 1)
