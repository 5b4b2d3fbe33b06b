def main : String =
  let count = 3 in
  let label (n : Int) : String = showInt n in
  ?result
