-- The implicit a of twice is solved to String by the function, then 1 is not a String.
def twice {a : Type} (f : a -> a) (x : a) : a = f (f x)

def main = twice (\x -> x ++ "!") 1
