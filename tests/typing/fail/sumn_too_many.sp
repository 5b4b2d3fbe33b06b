def NArgs (n : Nat) : Type =
  match n with
  | Z -> Int
  | S m -> Int -> NArgs m

def sumN (n : Nat) (acc : Int) : NArgs n =
  match n with
  | Z -> acc
  | S m -> \x -> sumN m (acc + x)

def main = sumN (S Z) 0 1 2
