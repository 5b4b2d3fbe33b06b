-- Lists and `andThen` (docs/stdlib.md).

def half (n : Int) : Maybe Int = if n % 2 == 0 then Just (n / 2) else Nothing

def positive (n : Int) : Either String Int = if n > 0 then Right n else Left ("not positive: " ++ showInt n)

def main =
  [ show (scanl (\a b -> a + b) 0 [1, 2, 3, 4], scanl (\a b -> a + b) 0 [], take 4 (scanl (\a b -> a * b) 1 (range 1 100000000)))
  , show (groupBy (\a b -> a == b) [1, 1, 2, 3, 3, 3, 1], group ["a", "a", "b"], groupBy (\a b -> a <= b) [1, 2, 3, 2, 5, 1])
  , show (span (\x -> x < 3) [1, 2, 3, 1], partition (\x -> x % 2 == 0) (range 0 7), splitAt 2 [1, 2, 3])
  , show (chunksOf 3 (range 0 8), chunksOf 0 [1, 2], chunksOf 2 ([] : List Int))
  , show (take 7 (cycle [1, 2, 3]), cycle ([] : List Int))
  , show (andThen (Just 8) half, andThen (Just 3) half, andThen (andThen (Just 16) half) half, andThen Nothing half)
  , show (andThen (positive 3) (\n -> positive (n - 5)), andThen (positive 0) (\n -> Right (n + 1)))
  ]
