-- `id`'s implicit argument lives in Type; inferred from `Type`, it would be `Type 1`.
def x : Type 1 = id Type
