-- let with a `_` annotation and metavariables solved from later uses.
def main =
  let x : _ = 3 in
  let xs : List _ = [] in
  let f = \y -> y ++ "!" in
  (x + 1, length (Cons 1.0 xs), f "a", let g = id in g 3)
