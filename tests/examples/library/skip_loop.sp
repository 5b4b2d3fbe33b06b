-- Searches along a range (`if lo >= hi then … else if test then … else f … (lo + 1) …`)
-- skip the elements whose test is computed at hand to False without a call each:
-- the prelude's `filterRange` and `mapFilterRange` (what `filter p (range lo hi)`
-- becomes), and functions of the same shape written in the program. Each gives
-- what the calls give: the same elements, the same first hit, the same error.
def hit (k : Int) (x : Int) : Bool = x > 0 && x % k == 0

def firstHit (k : Int) (lo : Int) (hi : Int) : Maybe Int =
  if lo >= hi then Nothing else if hit k lo then Just lo else firstHit k (lo + 1) hi

-- Not the shape: `hi` changes too. Still the same answers, by calls.
def firstHitBoth (k : Int) (lo : Int) (hi : Int) : Maybe Int =
  if lo >= hi then Nothing else if hit k lo then Just lo else firstHitBoth k (lo + 1) (hi - 1)

-- The shape with a test the machine cannot compute at hand (it runs a process):
-- evaluated as the calls would, once per element.
def search (p : Int -> Bool) (lo : Int) (hi : Int) : Maybe Int =
  if lo >= hi then Nothing else if p lo then Just lo else search p (lo + 1) hi

def total (m : Maybe Int) : Int =
  match m with
  | Just v -> v
  | Nothing -> 0 - 1

def main =
  ( filter (\x -> x % 250000 == 7) (range 0 1000000)
  , map (\x -> x * 2) (filter (\x -> hit 99991 x) (range 0 300000))
  , total (firstHit 77777 1 1000000)
  , total (firstHit 77777 1 1000)
  , total (firstHit 7 50 50)
  , total (firstHitBoth 13 1 100)
  , length (filter (\x -> x > 5) (range 10 0))
  , total (search (\x -> strLength (shell "printf abc") < x) 0 10)
  , total (search (\x -> x * x > 2000) 0 100)
  )
