-- Comparisons on Int, Float and String.
def main =
  ( 1 < 2, 2 <= 2, 3 > 4, 4 >= 5
  , 1.5 < 2.5, 2.0 >= 2.0
  , "apple" < "banana", "b" > "abc", "same" <= "same"
  , 1 == 1 && "a" != "b" || False
  )
