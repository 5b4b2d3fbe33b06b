-- A variable bound twice in one pattern is an error (it would silently shadow).
def f (p : Pair Int Int) : Int =
  match p with
  | (x, x) -> x

def main = f (1, 2)
