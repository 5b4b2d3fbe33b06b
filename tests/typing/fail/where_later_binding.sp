-- A where binding sees the bindings above it, not those below (no mutual recursion).
def f (x : Int) : Int = a
  where
    a = b + 1
    b = x
