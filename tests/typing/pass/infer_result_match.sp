-- The result type of a def may be omitted when it can be inferred, also when the
-- body is an `if` or a `match` on a parameter.
def sign (n : Int) = if n < 0 then "-" else "+"

def choose (b : Bool) = if b then 1 else 2

def orZero (m : Maybe Int) =
  match m with
  | Nothing -> 0
  | Just x -> x

def main = (sign (-1), choose False, orZero (Just 5))
