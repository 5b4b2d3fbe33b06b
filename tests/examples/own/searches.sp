-- Searches along a range that the machine runs in place (machine::loops, skip_loop),
-- conditions that compare numbers and pick their arm directly where a value is
-- computed at hand (machine::cheap): stopped at any step, each reads back and
-- resumes.
def hit (x : Int) : Bool = x % 97 == 5

def firstAbove (k : Int) (lo : Int) (hi : Int) : Maybe Int =
  if lo >= hi then Nothing else if lo * lo > k then Just lo else firstAbove k (lo + 1) hi

def safe (q : Int) (d : Int) (qs : List Int) : Bool =
  match qs with
  | [] -> True
  | Cons c rest -> q != c && abs (q - c) != d && safe q (d + 1) rest

def queens (n : Int) (k : Int) : List (List Int) =
  if k == 0 then [[]]
  else concatMap (\qs -> map (\q -> Cons q qs) (filter (\q -> safe q 1 qs) (range 1 (n + 1)))) (queens n (k - 1))

def main =
  ( filter (\x -> hit x) (range 0 600)
  , map (\x -> x * 2) (filter (\x -> x % 89 == 1) (range 0 400))
  , firstAbove 2000 0 100
  , length (queens 5 5)
  )
