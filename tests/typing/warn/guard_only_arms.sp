-- A guarded arm covers nothing: a match whose only arm is guarded misses a case.
def f (n : Int) : Int =
  match n with
  | k if k > 0 -> k
