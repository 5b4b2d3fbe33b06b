data Box (a : Type) = MkBox a

def b : Box Int = MkBox "s"

def main = b
