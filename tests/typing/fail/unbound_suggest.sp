def total (xs : List Int) : Int = foldl (\a b -> a + b) 0 xs

def main = totl [1, 2]
