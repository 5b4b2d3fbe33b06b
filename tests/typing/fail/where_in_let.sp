-- `where` inside a `let`: it belongs to a `def`.
def main =
  let x = y + 1
    where y = 2
  in x
