def f (m : Maybe Int) : Int =
  match m with
  | Nil -> 0
  | Cons x xs -> x

def main = f Nothing
