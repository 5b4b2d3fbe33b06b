def f (p : Pair Int Int) : Int =
  match p with
  | MkPair a -> a

def main = f (1, 2)
