-- Lists made by `map` and `filter` over a `range` are made without the range's own
-- list (mapFilterRange, filterRange in the prelude); they are the same lists.
def evens (n : Int) : List Int = filter (\x -> x % 2 == 0) (range 0 n)
def squares (n : Int) : List Int = map (\x -> x * x) (range 0 n)
def oddSquares (n : Int) : List Int = map (\x -> x * x) (filter (\x -> x % 2 == 1) (range 0 n))
def pairsWith (k : Int) (n : Int) : List (Pair Int Int) = map (\x -> (k, x)) (filter (\x -> x != k) (range 0 n))

def main = (evens 10, squares 5, oddSquares 10, pairsWith 2 4, length (concatMap (\k -> pairsWith k 50) (range 0 50)))
