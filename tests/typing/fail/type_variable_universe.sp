-- `a` may be a type in Type 1, and `id` takes only types in Type.
def f {a : Type 1} (x : a) : a = id x
