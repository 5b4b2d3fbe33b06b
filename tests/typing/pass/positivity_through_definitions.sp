-- A field may name a definition of the data type's own group: its body says how it
-- uses the type, even where it does not unfold (a `match` on a parameter), as Agda
-- looks into definitions.
data Forest = MkForest (Trees Int)

def Trees (a : Type) : Type = List (Pair a Forest)

data Tower (n : Nat) = Base | Up (Floors n)

def Floors (n : Nat) : Type = match n with
  | Z -> Unit
  | S m -> Pair (Tower m) (Floors m)

def count (f : Forest) : Int = match f with
  | MkForest ts -> 1 + sum (map (\t -> count (snd t)) ts)

def heights (n : Nat) (t : Tower n) : Int = match t with
  | Base -> 0
  | Up _ -> natToInt n

def main = (count (MkForest [(1, MkForest []), (2, MkForest [(3, MkForest [])])]),
  heights (S (S Z)) (Up {S (S Z)} (Base, (Base, ()))))
