-- A local polymorphic helper used at several types inside a def.
def report (n : Int) (s : String) : String =
  let wrap {a : Type} (show : a -> String) (x : a) : String = "[" ++ show x ++ "]" in
  wrap showInt n ++ wrap (\t -> t) s ++ wrap (\b -> if b then "T" else "F") (n > 0)

def main : String = report 3 "x"
