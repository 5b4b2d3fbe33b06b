data Box (a : Type) = MkBox a

def b : Box 3 = MkBox 3

def main = 1
