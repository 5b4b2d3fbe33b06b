def f (m : Maybe Int) =
  match m with
  | Nothing -> 0
  | Just x -> "some"

def main = f Nothing
