-- `x : xs` in a pattern (a Haskell habit): cons is `::`.
def f (xs : List Int) : Int =
  match xs with
  | x : rest -> x
  | [] -> 0
