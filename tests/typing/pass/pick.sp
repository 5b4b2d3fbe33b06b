-- The pick example: the result type depends on a Bool.
def Pick (b : Bool) : Type = if b then Int else String

def pick (b : Bool) : Pick b =
  match b with
  | True -> 42
  | False -> "forty-two"

def main = (pick True + 1, pick False ++ "!")
