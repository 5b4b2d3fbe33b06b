-- Recursive functions whose value is needed now are computed at hand, without the
-- machine's records: a search down a list, a loop longer than one such computation
-- may take, a recursion deeper than it may nest. Each gives what the machine gives.
def safe (q : Int) (d : Int) (qs : List Int) : Bool =
  match qs with
  | [] -> True
  | Cons c rest -> q != c && abs (q - c) != d && safe q (d + 1) rest

def countdown (n : Int) (acc : Int) : Maybe Int =
  if n == 0 then Just acc else countdown (n - 1) (acc + n % 7)

def len (xs : List Int) : Int =
  match xs with
  | [] -> 0
  | Cons _ rest -> 1 + len rest

def firstOver (k : Int) (xs : List Int) : Maybe Int =
  match xs with
  | [] -> Nothing
  | Cons x rest -> if x > k then Just x else firstOver k rest

def total (m : Maybe Int) : Int =
  match m with
  | Just v -> v
  | Nothing -> 0 - 1

def main =
  ( length (filter (\q -> safe q 1 [1, 3, 5]) (range 0 12))
  , total (countdown 100000 0)
  , len (range 0 5000)
  , total (firstOver 3000 (range 0 5000))
  , total (firstOver 9999 (range 0 10))
  )
