-- Sets and arrays (docs/stdlib.md).

def evens : Set Int = setFromList (map (\i -> i * 2) (range 0 10))

def grid : Array Int = arrayFromList (range 10 20)

def main =
  [ show (setToList (setInsert 5 (setDelete 4 evens)), setSize evens, setNull (setEmpty : Set Int))
  , show (setMember 6 evens, setMember 7 evens, setToList (setSingleton "x"))
  , show (setToList (setUnion (setFromList [1, 2, 3]) (setFromList [3, 4])))
  , show (setToList (setIntersection (setFromList [1, 2, 3]) (setFromList [3, 4, 2])))
  , show (setToList (setDifference (setFromList [1, 2, 3]) (setFromList [3, 4])))
  , show (setFromList ["b", "a", "b"] == setInsert "a" (setSingleton "b"))
  , show (arrayLength grid, arrayGet 0 grid, arrayGet 9 grid, arrayGet 10 grid, arrayGet (-1) grid)
  , show (arrayAt 3 grid, arrayToList (arraySet 0 99 grid), arrayToList grid)
  , show (arrayToList (arrayPush 3 (arrayPush 2 (arrayPush 1 arrayEmpty))), arrayLength (arrayEmpty : Array Int))
  , show (arrayToList (arrayMake 3 "z"), arrayFromList [1, 2] == arrayPush 2 (arrayFromList [1]))
  , show (arrayToList (foldlStrict (\a i -> arraySet (i % 5) (arrayAt (i % 5) a + i) a) (arrayMake 5 0) (range 0 1000)))
  ]
