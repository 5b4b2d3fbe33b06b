-- Fannkuch: for every permutation of 1..n (in lexicographic order), count the pancake
-- flips until 1 is in front; the maximum, and a checksum alternating in sign.

def n : Int = 9

-- The list without the first occurrence of `x`.
def remove (x : Int) (xs : List Int) : List Int =
  match xs with
  | [] -> []
  | y :: rest -> if x == y then rest else y :: remove x rest

-- All permutations, in lexicographic order when `xs` is sorted.
def permutations (xs : List Int) : List (List Int) =
  match xs with
  | [] -> [[]]
  | _ -> concatMap (\x -> map (\p -> x :: p) (permutations (remove x xs))) xs

def flips (p : List Int) : Int =
  match p with
  | 1 :: _ -> 0
  | k :: _ -> 1 + flips (reverse (take k p) ++ drop k p)
  | [] -> 0

def main : String =
  join "\n" [showInt checksum, "Pfannkuchen(" ++ showInt n ++ ") = " ++ showInt most]
  where
    counts = map flips (permutations (range 1 (n + 1)))
    signed = zipWith (\i f -> if i % 2 == 0 then f else 0 - f) (iterate (\i -> i + 1) 0) counts
    checksum = sum signed
    most = foldl max 0 counts
