-- How `spindle run` prints maps, sets and arrays (and `--format json`).

def main =
  ( mapFromList [("b", 2), ("a", 1)]
  , mapFromList [(1, (True, "x"))]
  , Just (setFromList [3, 1, 2, 1])
  , arrayFromList [1.5, 2.5]
  , ((mapEmpty : Map Int Int), (setEmpty : Set String), (arrayEmpty : Array Int))
  , [mapSingleton (1, 2) "pair key"]
  )
