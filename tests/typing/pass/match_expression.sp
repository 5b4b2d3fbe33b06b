-- Matching on an expression that is not a variable (no refinement needed).
def describe (xs : List Int) : String =
  match filter (\x -> x > 2) xs with
  | [] -> "none"
  | Cons x _ -> "first " ++ showInt x

def main = (describe [1, 2, 3, 4], describe [1], match parseInt "12" with | Just n -> n | Nothing -> 0)
