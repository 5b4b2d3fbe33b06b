def main : Int =
  let e = 0 - 2 in
  2 ^ e
