-- A `_` for `id`'s implicit argument is a type in Type, whatever solves it.
def y = id {_} Type
