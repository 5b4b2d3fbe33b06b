data Box (a : Type) = MkBox a Missing

def main = 1
