-- An unsolved unknown in a message is named `_t`, with where it comes from.
def h (f : Int -> Int) : Int = f 1
def main = h (\x -> [])
