-- A value of a type in Type 1 used where Type 2 is expected, and types in Type
-- used where Type 1 is expected.
def Church : Type 1 = (A : Type) -> (A -> A) -> A -> A

def up (A : Type 2) : Type 2 = A

def up1 (A : Type 1) : Type 1 = A

def ChurchAgain : Type 2 = up Church

def three : up1 Church = \A f x -> f (f (f x))

def n : up1 (up1 Int) = 5

def main = (three Int (\k -> k * 2) 1, n)
