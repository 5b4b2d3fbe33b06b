-- Anagrams: generate words over a small alphabet, group the distinct ones by their
-- sorted letters, and report the largest classes; letter counts and a Caesar shift.

def wordCount : Int = 120000

def letters : List Char = chars "aeilnrst"

def nextSeed (s : Int) : Int = (s * 1103515245 + 12345) % 2147483648

-- One word, and the seed after it.
def word (seed : Int) : Pair String Int =
  (fromChars (map (\s -> fromMaybe 'a' (nth (s / 65536 % length letters) letters)) seeds), fromMaybe s1 (last seeds))
  where
    s1 = nextSeed seed
    seeds = take (4 + s1 / 64 % 4) (drop 1 (iterate nextSeed s1))

def generate (n : Int) (seed : Int) : List String =
  if n == 0 then []
  else
    match word seed with
    | (w, next) -> w :: generate (n - 1) next

def signature (w : String) : String = fromChars (sort (chars w))

def caesar (k : Int) (w : String) : String =
  fromChars (map (\c -> chr (mod (ord c - ord 'a' + k) 26 + ord 'a')) (chars w))

def isVowel (c : Char) : Bool = elem c (chars "aei")

def main : String =
  join "\n"
    ([ "words: " ++ showInt (length words) ++ ", distinct: " ++ showInt (length distinct) ++ ", classes: " ++ showInt (mapSize classes) ]
      ++ map (\km -> fromChars (map toUpper (chars (fst km))) ++ " " ++ showInt (length (snd km)) ++ ": " ++ join " " (take 4 (snd km))) largest
      ++ [ join " " (map (\cn -> fromChars [fst cn] ++ "=" ++ showInt (snd cn)) (mapToList letterCounts))
         , join " " (map (caesar 3) (take 6 words))
         , showInt (length (filter startsAndEnds words))
         ])
  where
    words = generate wordCount 59
    distinct = setToList (setFromList words)
    classes = foldl (\m w -> mapInsertWith (\new old -> old ++ new) (signature w) [w] m) mapEmpty distinct
    largest = take 6 (sortOn (\km -> (0 - length (snd km), fst km)) (mapToList classes))
    letterCounts = foldl (\m c -> mapInsertWith (\new old -> new + old) c 1 m) mapEmpty (concatMap chars words)
    startsAndEnds w =
      match chars w with
      | c :: _ -> isVowel c && not (isVowel (fromMaybe 'a' (last (chars w))))
      | [] -> False
