-- A file's definitions shadow prelude names; local bindings shadow globals.
def length (s : String) : Int = strLength s * 10

def x : Int = 1

def main = (length "ab", let x = "inner" in x, x, let map = 5 in map + 1)
