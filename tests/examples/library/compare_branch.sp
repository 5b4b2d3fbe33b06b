-- Conditions that compare two numbers choose their arm directly where a value is
-- computed at hand; anything else they compare (strings) is left to the general
-- path. Each gives what the machine gives.
def sign (x : Float) : Int =
  if x < 0.0 then 0 - 1 else if x > 0.0 then 1 else 0

def countIn (lo : Int) (hi : Int) (xs : List Int) : Int =
  match xs with
  | [] -> 0
  | Cons x rest -> (if lo <= x && x < hi then 1 else 0) + countIn lo hi rest

def firstNamed (name : String) (xs : List String) : Int =
  match xs with
  | [] -> 0 - 1
  | Cons x rest -> if x == name then 0 else 1 + firstNamed name rest

def nan : Float = 0.0 / 0.0

def main =
  ( map sign [0.0 - 2.5, 0.0, 3.0, nan]
  , if nan == nan then "equal" else "not equal"
  , countIn 3 7 (range 0 10)
  , firstNamed "c" ["a", "b", "c", "d"]
  , length (filter (\x -> x >= 2 || x == 0) (range 0 6))
  )
