def Church : Type = (A : Type) -> (A -> A) -> A -> A

def main = 1
