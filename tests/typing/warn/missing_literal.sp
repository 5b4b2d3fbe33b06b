def f (n : Int) : String =
  match n with
  | 0 -> "zero"
  | 1 -> "one"

def main = f 0
