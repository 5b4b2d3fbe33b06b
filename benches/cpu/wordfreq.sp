-- Word frequencies: generate a text from a skewed vocabulary, count its words in a
-- map, and print the most frequent ones and the counts by word length.

def wordCount : Int = 500000

def perLine : Int = 12

def syllables : List String = ["ka", "lo", "mi", "ra", "zu", "te", "no", "shi", "an", "vo", "e", "qua"]

def nextSeed (s : Int) : Int = (s * 1103515245 + 12345) % 2147483648

-- The word of number `i`: its digits in base 12, least significant first, as syllables.
def spell (i : Int) : String =
  fromMaybe "" (nth (i % n) syllables) ++ (if i / n == 0 then "" else spell (i / n))
  where
    n = length syllables

def vocabulary : Array String = arrayFromList (map spell (range 0 1500))

-- The words, each the product of two draws (so that small numbers are more frequent).
def draws (k : Int) (seed : Int) : List String =
  if k == 0 then []
  else arrayAt (a * b / 1500) vocabulary :: draws (k - 1) s2
  where
    s1 = nextSeed seed
    s2 = nextSeed s1
    a = s1 / 256 % 1500
    b = s2 / 256 % 1500

def generate : String = join "\n" (map (join " ") (chunksOf perLine (draws wordCount 31)))

def main : String =
  join "\n"
    ([ "words: " ++ showInt (sum (mapElems counts)) ++ ", distinct: " ++ showInt (mapSize counts)
     , "once only: " ++ showInt (mapSize (mapFilter (\c -> c == 1) counts))
     ] ++ map (\wc -> padRight 12 (fst wc) ++ padLeft 7 (showInt (snd wc))) top
       ++ map (\lc -> padLeft 3 (showInt (fst lc)) ++ padLeft 8 (showInt (snd lc))) (mapToList byLength))
  where
    counts = foldl (\m w -> mapInsertWith (\new old -> new + old) w 1 m) mapEmpty (words generate)
    top = take 15 (sortOn (\wc -> (0 - snd wc, fst wc)) (mapToList counts))
    byLength = mapFoldlWithKey (\m w c -> mapInsertWith (\new old -> new + old) (strLength w) c m) mapEmpty counts
