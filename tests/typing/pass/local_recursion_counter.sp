-- A local recursive function without annotations whose recursive call changes a
-- counter (`k - 1`): the unknown element type does not depend on the counter.
def firstN (n : Int) (xs : List Int) : List Int =
  go n xs
  where
    go k ys = match ys with
      | y :: rest if k > 0 -> y :: go (k - 1) rest
      | _ -> []

def main = (firstN 2 [5, 6, 7], let count k ys = match ys with
    | [] -> k
    | _ :: rest -> count (k + 1) rest
  in count 0 ["a", "b"])
