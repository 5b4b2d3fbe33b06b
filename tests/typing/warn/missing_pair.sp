-- The missing case is the pair (False, False), which the warning should name.
def f (p : Pair Bool Bool) : Int =
  match p with
  | (True, _) -> 1
  | (_, True) -> 2

def main = f (True, True)
