-- Where the result type cannot be known, it is an unknown named `_t`.
def g (n : Int) = ?f n
