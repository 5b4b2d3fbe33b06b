def p : Pair Int String = (1, 2)

def main = p
