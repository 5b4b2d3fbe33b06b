def main : Int =
  let f (x : Int) : String = x in
  1
