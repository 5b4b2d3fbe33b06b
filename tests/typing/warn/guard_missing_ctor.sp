-- The guarded arm for `Nothing` covers nothing: `Nothing` is missing.
def f (m : Maybe Int) (c : Bool) : Int =
  match m with
  | Nothing if c -> 0
  | Just x -> x
