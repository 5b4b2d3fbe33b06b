-- Ordering through `Ord` (docs/stdlib.md): min, max, minimum, maximum, sort, sortOn,
-- on numbers, strings, tuples, derived types, records and a hand-written instance.

data Suit = Clubs | Hearts | Spades deriving (Show, Eq, Ord)

record Card = { rank : Int, suit : Suit } deriving (Show)

data Len = MkLen String

instance Ord Len where
  compare a b = match (a, b) with
    | (MkLen x, MkLen y) -> compare (strLength x) (strLength y)

def lens (xs : List Len) : List String =
  map (\l -> match l with
    | MkLen s -> s) xs

def main =
  [ show (min 3 4, max 3 4, min "b" "a", max 2.5 1.5, min (1, "b") (1, "a"), max Hearts Clubs)
  , show (minimum [3, 1, 2], maximum [3, 1, 2], minimum ([] : List Int), maximum ["b", "c", "a"])
  , show (sort [5, 3, 9, 1, 3], sort ["pear", "apple", "fig"], sort [2.5, 0.5, 1.5])
  , show (sort [(2, "b"), (1, "z"), (2, "a")], sort [Spades, Clubs, Hearts], sort [Just 3, Nothing, Just 1])
  , show (sort [[3, 1], [2], [3], []], sort ([] : List Int), sort [7])
  , show (sortOn (\c -> c.suit) [{ rank = 3, suit = Spades }, { rank = 9, suit = Clubs }, { rank = 1, suit = Spades }])
  , show (sortOn (\s -> strLength s) ["ccc", "a", "bb", "d"], sortOn (\x -> 0 - x) [1, 3, 2])
  , show (lens (sort [MkLen "ccc", MkLen "a", MkLen "bb", MkLen "d"]))
  , show (lens (sortOn (\l -> l) [MkLen "ccc", MkLen "a", MkLen "bb", MkLen "d"]))
  , show (map (\l -> match l with
      | MkLen s -> s) (maybe [] (\l -> [l]) (maximum [MkLen "xy", MkLen "abc", MkLen "q", MkLen "def"])))
  , show (compare 1 2, compare "b" "a", compare [1, 2] [1, 2], compare (1, 2) (1, 3))
  ]
