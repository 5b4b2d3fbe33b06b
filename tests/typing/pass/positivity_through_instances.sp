-- `Wrap` passes its parameter `a` to its parameter `f`, which the check cannot see
-- through in general; `Wrap List (Rose a)` is checked as what it holds, `List (Rose a)`
-- (as Lean does for nested types).
data Wrap (f : Type -> Type) (a : Type) = W (f a)

data Rose (a : Type) = Node a (Wrap List (Rose a))

def size {a : Type} (r : Rose a) : Int = match r with
  | Node _ (W kids) -> 1 + sum (map size kids)

def leaf (x : Int) : Rose Int = Node x (W {List} [])

def main = size (Node 1 (W {List} [leaf 2, leaf 3, Node 4 (W {List} [leaf 5])]))
