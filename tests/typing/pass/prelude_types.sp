-- Prelude data and functions are polymorphic through implicit arguments.
def main =
  ( maybe 0 (\x -> x * 2) (Just 4)
  , either strLength (\b -> if b then 1 else 0) (Left "abc")
  , fromMaybe "d" (head [])
  , zip [1, 2] ["a", "b"]
  , unzip [(1, True)]
  , sortBy (\a b -> a <= b) ["b", "a"]
  )
