-- Local recursive functions without annotations: every `let` is recursive, and the
-- types are found by first-order unification.
def main =
  let go n acc = if n == 0 then acc else go (n - 1) (acc + n) in
  let fact = \n -> if n == 0 then 1 else n * fact (n - 1) in
  let len ys = match ys with
    | [] -> 0
    | _ :: t -> 1 + len t in
  let evens k = if k == 0 then [] else k * 2 :: evens (k - 1) in
  (go 10 0, fact 5, len ["a", "b", "c"], evens 3)
