def main =
  let n : Int = "x" in
  n
