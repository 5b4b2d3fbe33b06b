-- Maps (docs/stdlib.md): every function, printing and equality by entries.

data Color = Red | Green | Blue deriving (Show, Eq, Ord)

-- A key type ordered by hand (the prelude's own definitions do the work): by length,
-- then by text.
data Name = MkName String

instance Ord Name where
  compare a b = match (a, b) with
    | (MkName x, MkName y) -> (match compare (strLength x) (strLength y) with
      | EQ -> compare x y
      | o -> o)

instance Show Name where
  show n = match n with
    | MkName s -> "MkName " ++ show s

def count (ws : List String) : Map String Int =
  foldlStrict (\m w -> mapInsertWith (\new old -> new + old) w 1 m) mapEmpty ws

def squares : Map Int Int = mapFromList (map (\i -> (i, i * i)) (range 0 10))

def main =
  let m = count (words "the cat and the dog and the bird") in
  [ show (mapToList m)
  , show (mapLookup "the" m, mapLookup "cow" m, mapMember "dog" m, mapFindWithDefault 0 "cow" m)
  , show (mapSize m, mapNull m, mapNull (mapEmpty : Map Int Int), mapSize (mapSingleton 1 2))
  , show (mapToList (mapAdjust (\n -> n * 10) "cat" m), mapToList (mapAdjust (\n -> n * 10) "cow" m))
  , show (mapKeys (mapDelete "the" m), mapElems (mapDelete "cow" m))
  , show (mapToList (mapFromList [(3, "c"), (1, "a"), (3, "C")]))
  , show (mapToList (mapFromListWith (\later earlier -> earlier ++ later) [(1, "a"), (2, "b"), (1, "c")]))
  , show (mapFoldrWithKey (\k v acc -> k + v + acc) 0 squares, mapFoldlWithKey (\acc k v -> acc - v) 0 squares)
  , show (mapToList (mapMap (\v -> v + 1) (mapFilter (\v -> v > 20) squares)))
  , show (mapKeys (mapFilterWithKey (\k v -> k % 3 == 0) squares))
  , show (mapToList (mapUnion (mapFromList [(1, "a"), (2, "b")]) (mapFromList [(2, "B"), (3, "C")])))
  , show (mapToList (mapUnionWith (\a b -> a ++ b) (mapFromList [(1, "a"), (2, "b")]) (mapFromList [(2, "B"), (3, "C")])))
  , show (mapLookupMin squares, mapLookupMax squares, mapLookupMin (mapEmpty : Map Int Int))
  , show (mapToList (mapFromList [(Blue, 1), (Red, 2), (Green, 3)]))
  , show (mapToList (mapFromList [((2, "b"), 1), ((1, "z"), 2), ((2, "a"), 3)]))
  , show (mapToList (mapInsert (MkName "bo") 1 (mapFromList [(MkName "al", 2), (MkName "c", 3), (MkName "bob", 4)])))
  , show (mapFromList [(2, "b"), (1, "a")] == mapInsert 1 "a" (mapSingleton 2 "b"), squares == mapDelete 9 squares)
  , show (compare (mapFromList [(1, 1)]) (mapFromList [(1, 2)]), mapSingleton 1 [True])
  , show (mapFromList [(2, "b"), (1, "a")])
  ]
