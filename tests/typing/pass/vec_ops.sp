-- Own variations on length-indexed vectors: the vector is abstracted into the goal,
-- so the refinement of n reaches its type ("convoy" style).
def Vec (n : Nat) (a : Type) : Type =
  match n with
  | Z -> Unit
  | S m -> Pair a (Vec m a)

def vmap (n : Nat) {a : Type} {b : Type} (f : a -> b) : Vec n a -> Vec n b =
  match n with
  | Z -> \v -> ()
  | S m -> \v -> (f (fst v), vmap m f (snd v))

def vhead (n : Nat) {a : Type} (v : Vec (S n) a) : a = fst v

def vzip (n : Nat) {a : Type} {b : Type} : Vec n a -> Vec n b -> Vec n (Pair a b) =
  match n with
  | Z -> \xs ys -> ()
  | S m -> \xs ys -> ((fst xs, fst ys), vzip m (snd xs) (snd ys))

def toList (n : Nat) {a : Type} : Vec n a -> List a =
  match n with
  | Z -> \v -> []
  | S m -> \v -> Cons (fst v) (toList m (snd v))

def three : Vec (S (S (S Z))) Int = (1, 2, 3, ())

def main =
  ( toList (S (S (S Z))) (vmap (S (S (S Z))) (\x -> x * x) three)
  , vhead (S (S Z)) three
  , toList (S (S (S Z))) (vzip (S (S (S Z))) three (vmap (S (S (S Z))) showInt three))
  )
