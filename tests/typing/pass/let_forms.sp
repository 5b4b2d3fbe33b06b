-- let without and with annotations, and the function form.
def main =
  let a = 3 in
  let b : Int = a * 2 in
  let c : Float = 1.5 in
  let f (x : Int) : Int = x + b in
  let g (s : String) (n : Int) : String = s ++ showInt n in
  (a, b, c, f 10, g "n=" (f 1))
