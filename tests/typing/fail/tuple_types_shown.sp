-- Tuple types are shown as they are written, in argument position without more
-- parentheses.
def pairs : List (Pair Int String) = [(1, "a")]

def triple : Pair Int (Pair String Bool) = (1, "b", True)

def bad : Maybe (Pair Int Int) = pairs

def worse : Int = triple
