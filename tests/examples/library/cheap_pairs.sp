-- A lazy fold whose step builds a pair from the previous one: each accumulator is
-- computed when it is built (cheap eagerness), and what it would fail on is left
-- lazy, so only what is needed can fail.
def count (acc : Pair Int Int) (w : String) : Pair Int Int =
  match parseInt w with
  | Just n -> (fst acc, snd acc + n)
  | Nothing -> (if strLength w > 4 then fst acc + 1 else fst acc, snd acc)

def ws (n : Int) : List String = concatMap (\i -> [showInt i, "word", "longer"]) (range 0 n)

-- The second field divides by zero at the first step; nothing needs it.
def firsts : Int = fst (foldl (\acc x -> (fst acc + x, snd acc / x)) (0, 1) [0, 1, 2, 3])

def main = (foldl count (0, 0) (ws 100000), firsts)
