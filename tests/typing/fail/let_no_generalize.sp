-- A let without implicit binders is not generalised: f is used at one type only.
-- (Polymorphic local functions are written `let f {a : Type} (x : a) : a = x`.)
def main = let f = \x -> x in (f 1, f "s")
