-- A variadic string builder: the number of arguments comes from a Nat.
def Args (n : Nat) : Type =
  match n with
  | Z -> String
  | S m -> String -> Args m

def joinN (n : Nat) (sep : String) (acc : String) : Args n =
  match n with
  | Z -> acc
  | S m -> \s -> joinN m sep (if acc == "" then s else acc ++ sep ++ s)

def three : Nat = S (S (S Z))

def main : String = joinN three ", " "" "a" "b" "c"
