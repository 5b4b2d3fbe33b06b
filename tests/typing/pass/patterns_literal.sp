-- Int and String literal patterns.
def name (n : Int) : String =
  match n with
  | 1 -> "one"
  | 2 -> "two"
  | -1 -> "minus one"
  | _ -> "many"

def code (s : String) : Int =
  match s with
  | "red" -> 1
  | "green" -> 2
  | other -> strLength other

def main = (map name [1, 2, -1, 9], map code ["red", "green", "purple"])
