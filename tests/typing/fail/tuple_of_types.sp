-- `Pair` takes types in Type; a tuple holding a type would be a `Pair Type Int`.
def p = (Int, 1)
