-- Type 1000 is the largest universe; it can stand where a type goes.
def id1000 (A : Type 1000) (x : A) : A = x

def T : Type 1000 = (A : Type 999) -> A -> A

def main = id1000 Int 7
