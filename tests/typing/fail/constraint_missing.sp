def loud {a : Type} (x : a) : String = show x

def main = loud 1
