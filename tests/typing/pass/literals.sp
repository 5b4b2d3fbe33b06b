-- Literals and primitive types.
def i : Int = 1_000_000

def h : Int = 0x2A

def f : Float = 6.02e23

def g : Float = 1e-9

def neg : List Int = [-1, -2]

def s : String = "tab\there \u{1F600}"

def main = (i, h, f, g, neg, s, -3, 2.0)
