-- The parameter's type `_` is a type in Type (the arrow is checked there), so it
-- cannot be solved as `Type 1` by a use.
def k (x : _) : Int = 0
def main = k Type
