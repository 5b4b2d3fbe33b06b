-- A guard must be a Bool.
def f (n : Int) : Int =
  match n with
  | k if k + 1 -> 1
  | _ -> 0
