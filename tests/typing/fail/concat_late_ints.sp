-- The operands' type is known only after `++` is met, and it is no String or List.
def late = let h = \x y -> x ++ y in h 1 2
