-- A parameter of polymorphic function type (implicit binder inside).
def both (f : {a : Type} -> a -> List a) : Pair (List Int) (List String) = (f 1, f "s")

def single {a : Type} (x : a) : List a = [x]

def main = (both single, both (\x -> [x, x]))
