def Church : Type 1 = (A : Type) -> (A -> A) -> A -> A

def bad : Church = \A f x -> 0

def main = 1
