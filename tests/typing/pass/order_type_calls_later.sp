-- Definition order does not matter, in types either (LANGUAGE.md section 2): x's type
-- calls pick and Vec, both defined further down, and Vec two unfolds two, defined last.
def x : pick True = 5

def v : Vec two = (1, (2, ()))

def main = (x, v)

def pick (b : Bool) : Type = if b then Int else String

def Vec (n : Int) : Type = if n == 0 then Unit else Pair Int (Vec (n - 1))

def two = 2
