-- The loop is reached when the argument's type is compared with Int.
def Loop (n : Nat) : Type = Loop n

def f (x : Loop (S Z)) : Int = 1

def main = f 3
