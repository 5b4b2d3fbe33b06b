-- Lambdas with annotated explicit and implicit parameters, inferred without a goal.
def main =
  let k = \(x : Int) (y : String) -> strLength y + x in
  let poly = \{b : Type} (x : b) -> (x, x) in
  (k 1 "abc", poly 2, poly {String} "s")
