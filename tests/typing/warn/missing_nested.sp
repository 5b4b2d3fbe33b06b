def f (m : Maybe (Maybe Int)) : Int =
  match m with
  | Nothing -> 0
  | Just Nothing -> 1

def main = f Nothing
