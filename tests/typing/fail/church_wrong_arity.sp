def Church : Type 1 = (A : Type) -> (A -> A) -> A -> A

def two : Church = \A f x -> f (f x)

def toInt (n : Church) : Int = n (\k -> k + 1) 0

def main = toInt two
