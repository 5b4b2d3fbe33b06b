-- Guards in match arms: `| p if c -> e`. A false guard goes on to the next arm, which
-- sees the same value; guards may follow any pattern and use its variables.
def classify (n : Int) : String =
  match n with
  | k if k < 0 -> "negative"
  | 0 -> "zero"
  | k if k > 100 -> "big"
  | _ -> "small"

def firstBig (xs : List Int) : Maybe Int =
  match xs with
  | x :: _ if x > 10 -> Just x
  | _ :: rest -> firstBig rest
  | [] -> Nothing

def describe (p : Pair (Maybe Int) Int) : String =
  match p with
  | (Just a, b) if a == b -> "same"
  | (Just a, b) if a > b -> "bigger"
  | (Just _, _) -> "smaller"
  | (Nothing, b) if b == 0 -> "nothing and zero"
  | (Nothing, _) -> "nothing"

def main =
  ( map classify [-5, 0, 7, 1000]
  , firstBig [1, 5, 12, 30]
  , map describe [(Just 1, 1), (Just 2, 1), (Just 0, 1), (Nothing, 0), (Nothing, 3)]
  )
