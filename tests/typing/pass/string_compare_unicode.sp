-- String operations and comparisons by code point.
def main =
  ( "é" > "z"
  , "abc" ++ "\u{1F600}"
  , strLength ("naïve" ++ "!")
  , sortBy (\a b -> a <= b) ["pear", "apple", "Zebra"]
  )
