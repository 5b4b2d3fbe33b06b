-- Strictly positive occurrences are fine: as the result of a function, and as the
-- argument of a data type whose parameter is itself strictly positive (List, Maybe,
-- Pair), also through a type alias and in mutually recursive types.
data Rose = Node Int (List Rose)

data Stream = MkStream (Int -> Pair Int (Maybe Stream))

def Forest : Type = List Rose

data Wood = MkWood Forest

data Even = Zero | Succ Odd
data Odd = OSucc Even

def size (r : Rose) : Int = match r with
  | Node _ kids -> 1 + sum (map size kids)

def main = (size (Node 1 [Node 2 [], Node 3 [Node 4 []]]), match MkWood [Node 5 []] with
  | MkWood f -> length f)
