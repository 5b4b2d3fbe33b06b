def main : Int =
  (1 + 2
