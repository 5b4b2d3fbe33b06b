-- The inner `match` takes the last arm, meant for the outer one, which misses `B`.
data AB = A | B

def f (x : AB) (y : Bool) : Int =
  match x with
  | A -> match y with
    | True -> 1
    | _ -> 2
  | _ -> 3
