def f (xs : List Int) : Int =
  match xs with
  | Cons x -> x
  | Nil -> 0
