def Loop (n : Nat) : Type = Loop n

def x : Loop Z = 1

def main = x
