-- A hole in function position has the function's type, not `a -> Unit`.
def apply {a : Type} (x : a) : a = ?what x
