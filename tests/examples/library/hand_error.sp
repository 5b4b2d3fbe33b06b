-- A recursive function computed where its value is needed fails where the machine
-- would: the error and its place are the machine's.
def divideAll (k : Int) (xs : List Int) : Int =
  match xs with
  | [] -> k
  | Cons x rest -> divideAll (k / x) rest

def main = if divideAll 1000000 [5, 2, 0, 3] > 0 then 1 else 0
