-- Data types with parameters: the parameters are implicit in constructors.
data Box (a : Type) = MkBox a

data Two (a : Type) (b : Type) = One a | Other b | Both a b

def unbox {a : Type} (b : Box a) : a =
  match b with
  | MkBox x -> x

def describe (t : Two Int String) : String =
  match t with
  | One n -> showInt n
  | Other s -> s
  | Both n s -> s ++ showInt n

def main = (unbox (MkBox 7), map describe [One 1, Other "o", Both 2 "b"], MkBox {String} "e")
