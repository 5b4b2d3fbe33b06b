-- (e : T) annotations inside expressions, and checking against aliases.
def Num : Type = Int

def main = ((1 : Num) + 2, ([] : List String), (Nothing : Maybe Int), ((\x -> x + 1) : Int -> Int) 1)
