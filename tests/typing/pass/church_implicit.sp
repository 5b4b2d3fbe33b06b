-- Church numerals with an implicit type argument, in Type 1.
def Num : Type 1 = {A : Type} -> (A -> A) -> A -> A

def one : Num = \f x -> f x

def plus (m : Num) (n : Num) : Num = \f x -> m f (n f x)

def pow2 (n : Num) : Num = \f x -> n f (n f x)

def toInt (n : Num) : Int = n (\k -> k + 1) 0

def main = (toInt one, toInt (plus one (pow2 one)), toInt (pow2 (pow2 (plus one one))))
