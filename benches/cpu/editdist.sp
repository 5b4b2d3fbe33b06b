-- Edit distance: Levenshtein distances between generated DNA-like sequences, by the
-- classic dynamic programme, one row at a time.

def pairCount : Int = 250

def nextSeed (s : Int) : Int = (s * 1103515245 + 12345) % 2147483648

-- One sequence (bases 0-3), and the seed after it.
def sequence (seed : Int) : Pair (List Int) Int =
  (map (\s -> s / 65536 % 4) seeds, fromMaybe s1 (last seeds))
  where
    s1 = nextSeed seed
    len = 40 + s1 / 64 % 80
    seeds = take len (drop 1 (iterate nextSeed s1))

def sequences (n : Int) (seed : Int) : List (List Int) =
  if n == 0 then []
  else
    match sequence seed with
    | (xs, next) -> xs :: sequences (n - 1) next

def pairUp (xs : List (List Int)) : List (Pair (List Int) (List Int)) =
  match xs with
  | a :: b :: rest -> (a, b) :: pairUp rest
  | _ -> []

def letters (xs : List Int) : String = concatStrings (map (\x -> substring x 1 "ACGT") xs)

-- The next row of the table from the previous one, for the element `x` of the first
-- sequence; `left` is the cell just computed.
def rowFrom (x : Int) (left : Int) (prev : List Int) (b : List Int) : List Int =
  match (prev, b) with
  | (diag :: up :: rest, y :: ys) ->
    let cost = if x == y then 0 else 1 in
    let c = min (min (up + 1) (left + 1)) (diag + cost) in
    c :: rowFrom x c (up :: rest) ys
  | _ -> []

def distance (a : List Int) (b : List Int) : Int =
  fromMaybe 0 (last (foldl nextRow (range 0 (length b + 1)) (zip (range 1 (length a + 1)) a)))
  where
    nextRow prev ix = fst ix :: rowFrom (snd ix) (fst ix) prev b

def main : String =
  join "\n"
    [ "pairs: " ++ showInt (length pairs)
    , "total distance: " ++ showInt (sum dists)
    , "closest: " ++ showInt (fromMaybe 0 (minimum dists)) ++ ", farthest: " ++ showInt (fromMaybe 0 (maximum dists))
    , letters (fst first)
    , letters (snd first)
    , showInt (distance (fst first) (snd first))
    ]
  where
    pairs = pairUp (sequences (2 * pairCount) 5)
    dists = map (\ab -> distance (fst ab) (snd ab)) pairs
    first = fromMaybe ([], []) (head pairs)
