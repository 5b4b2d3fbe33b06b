-- `total` is a keyword only before `def` at the start of a line (issue 31): a
-- definition, a parameter and a local variable may still be called `total`.
def total (xs : List Int) : Int = sum xs

def scaled (total : Int) : Int =
  total
    * 2

def main =
  let total2 = total [1, 2, 3] in
  (total2, scaled total2)
