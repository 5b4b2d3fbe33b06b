-- Strict folds over `range`, `map` and `filter` pipelines run as loops (machine::fuse);
-- they print what the lists would give, lazy elements stay lazy, and a fold whose
-- function calls an external, or is not known, runs over the list as written.
def square (x : Int) : Int = x * x

def total (f : Int -> Int) (n : Int) : Int = sum (map f (range 0 n))

def main =
  ( sum (map (\x -> x * 2) (filter (\x -> x % 3 != 0) (range 0 10)))
  , length (filter (\x -> x > 3) (map square (range (0 - 5) 5)))
  , product (map (\x -> x + 1) (range 0 10))
  , foldlStrict (\acc x -> (acc * 31 + x) % 1000) 7 (map (\x -> x % 5) (range 0 20))
  , sum (map (\x -> x) (range 5 2))
  , length (map (\x -> 10 / x) (range 0 3))
  , sum (map (\p -> fst p) (map (\x -> (x, x)) (range 0 4)))
  , total (\x -> x * 3) 4
  , sum (map (\x -> delay 5 x) (range 0 4))
  , sum (map (\f -> f 1) (map (\x y -> x + y) (range 0 3)))
  )
