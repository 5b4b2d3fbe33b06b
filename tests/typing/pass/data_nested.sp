-- Nested data types.
data Tree (a : Type) = Leaf | Node (Tree a) a (Tree a)

data Rose (a : Type) = MkRose a (List (Rose a))

def insert (x : Int) (t : Tree Int) : Tree Int =
  match t with
  | Leaf -> Node Leaf x Leaf
  | Node l y r -> if x < y then Node (insert x l) y r else Node l y (insert x r)

def toList {a : Type} (t : Tree a) : List a =
  match t with
  | Leaf -> []
  | Node l x r -> toList l ++ [x] ++ toList r

def size {a : Type} (r : Rose a) : Int =
  match r with
  | MkRose _ kids -> 1 + sum (map size kids)

def main =
  ( toList (foldr insert Leaf [5, 2, 8, 1])
  , size (MkRose 1 [MkRose 2 [], MkRose 3 [MkRose 4 []]])
  , Just (Just (Node Leaf (-1) Leaf))
  )
