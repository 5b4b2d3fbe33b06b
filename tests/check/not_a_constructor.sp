def g : Int = 1

def f (n : Int) : Int =
  match n with
  | Zero -> 1
  | _ -> 0
