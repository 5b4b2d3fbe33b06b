-- A function type chosen by a Bool: with True the result takes one more argument.
def Fn (b : Bool) : Type = if b then Int -> Int else Int

def make (b : Bool) (k : Int) : Fn b =
  match b with
  | True -> \x -> x + k
  | False -> k

def main = (make True 10 5, make False 10)
