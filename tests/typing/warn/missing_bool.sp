def f (b : Bool) : Int =
  match b with
  | True -> 1

def main = f True
