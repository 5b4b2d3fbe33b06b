-- An arm that no value can reach is a warning: the arms before it cover it.
def f (b : Bool) : Int = match b with
  | True -> 1
  | False -> 2
  | _ -> 3

def g (n : Int) : Int = match n with
  | 1 -> 1
  | 1 -> 2
  | _ -> 3

def h (p : Pair Int Bool) : Int = match p with
  | (x, True) -> x
  | (_, _) -> 0
  | (y, False) -> y

def main = f True + g 1 + h (1, True)
