-- Polymorphic data nested in polymorphic data; implicit arguments through layers.
def partition {a : Type} {b : Type} (es : List (Either a b)) : Pair (List a) (List b) =
  match es with
  | [] -> ([], [])
  | Cons e rest ->
      (let p = partition rest in
       match e with
       | Left x -> (Cons x (fst p), snd p)
       | Right y -> (fst p, Cons y (snd p)))

def main = partition [Left 1, Right "a", Left 2, Right "b"]
