-- A dependent match that omits a case still checks, with a warning.
def Pick (b : Bool) : Type = if b then Int else String

def pick (b : Bool) : Pick b =
  match b with
  | True -> 42

def main = pick True
