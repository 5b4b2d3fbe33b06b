def f (n : Int) : Int =
  match n with
  | "one" -> 1
  | _ -> 0

def main = f 1
