-- `error` in a type: its message, at the place of the call.
def F (n : Int) : Type = if n > 0 then Int else error "F needs a positive number"

def x : F (0 - 1) = 3
