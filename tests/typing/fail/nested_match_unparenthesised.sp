-- A `match` in an arm without parentheses takes the arms written after it.
data Shape = Circle Int | Square Int

def area (s : Shape) (round : Bool) : Int =
  match s with
  | Circle r -> match round with
                | True -> 3 * r * r
                | False -> 314 * r * r / 100
  | Square a -> a * a
