-- Lambda parameter types come from the expected type.
def applyTo (f : Int -> String -> String) : String = f 3 "x"

def g : Int -> Int -> Int = \a b -> a * 10 + b

def h : {a : Type} -> a -> List a = \x -> [x, x]

def main = (applyTo (\n s -> s ++ showInt n), g 4 2, h "c")
