def f (s : String) : Int =
  match s with
  | 1 -> 1
  | _ -> 0

def main = f "x"
