-- Structural == in a polymorphic lookup-like function.
data Color = Red | Green | Blue

def find {k : Type} {v : Type} (key : k) (table : List (Pair k v)) : Maybe v =
  match table with
  | [] -> Nothing
  | Cons (k2, v2) rest -> if k2 == key then Just v2 else find key rest

def count {a : Type} (x : a) (xs : List a) : Int = length (filter (\y -> y == x) xs)

def main =
  ( find Green [(Red, 1), (Green, 2), (Blue, 3)]
  , find (Just [1, 2]) [(Just [1], "a"), (Just [1, 2], "b")]
  , find "z" [("a", 1.0)]
  , count (1, "x") [(1, "x"), (2, "x"), (1, "x")]
  , Red != Blue
  , lookup 2 [(1, "one"), (2, "two")]
  )
