-- Church numerals live in Type 1.
def Church : Type 1 = (A : Type) -> (A -> A) -> A -> A

def czero : Church = \A f x -> x

def csucc (n : Church) : Church = \A f x -> f (n A f x)

def add (m : Church) (n : Church) : Church = \A f x -> m A f (n A f x)

def mul (m : Church) (n : Church) : Church = \A f x -> m A (n A f) x

def toInt (n : Church) : Int = n Int (\k -> k + 1) 0

def toStr (n : Church) : String = n String (\s -> s ++ "|") ""

def two : Church = csucc (csucc czero)

def three : Church = add two (csucc czero)

def main = (toInt czero, toInt (add two three), toInt (mul two three), toInt (mul three three), toStr two)
