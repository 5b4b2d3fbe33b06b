-- Arithmetic is resolved by operand type: Int or Float.
def i : Int = 7 / 2 + 7 % 3 * 2 - 1

def negdiv : Int = (-7) / 2

def f : Float = 7.0 / 2.0 + 1.5 * 2.0 - 0.5

def main = (i, negdiv, f, 1.0 / 3.0, 10 - 2 - 3)
