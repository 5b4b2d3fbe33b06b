-- Generator pipelines: lazy streams built with map / filter / take over an infinite
-- sequence (a random-number stream and Collatz chains).

def nextSeed (s : Int) : Int = (s * 1103515245 + 12345) % 2147483648

def naturalsFrom (n : Int) : List Int = iterate (\k -> k + 1) n

def isPrime (n : Int) : Bool =
  n >= 2 && all (\d -> n % d != 0) (takeWhile (\d -> d * d <= n) (naturalsFrom 2))

def collatz (n : Int) : List Int = iterate (\k -> if k % 2 == 0 then k / 2 else 3 * k + 1) n

def chainLength (n : Int) : Int = length (takeWhile (\x -> x != 1) (collatz n))

def lastN {a : Type} (k : Int) (xs : List a) : List a = drop (length xs - k) xs

def main : String =
  join "\n"
    [ "primes: " ++ showInt (length primes) ++ ", sum " ++ showInt (sum primes) ++ ", last " ++ show (lastN 5 primes)
    , "longest chain below 30001: " ++ show longest
    , "squares: " ++ show squares
    , "odd triangles: " ++ show triangles
    ]
  where
    primes = take 4000 (filter isPrime (map (\r -> r % 100000) (drop 1 (iterate nextSeed 1))))
    lengths = map (\n -> (n, chainLength n)) (naturalsFrom 1)
    longest = foldl (\best nl -> if snd nl > snd best then nl else best) (0, -1) (take 30000 lengths)
    squares = take 10 (map (\x -> x * x) (filter (\x -> x % 3 != 0 && x % 7 != 0) (naturalsFrom 1)))
    triangles = take 8 (filter (\s -> s % 2 == 1) (map (\k -> sum (range 0 k)) (naturalsFrom 1)))
