-- Numbers: Int helpers, Float conversions, Nat.

def abs (n : Int) : Int = if n < 0 then 0 - n else n

def min (a : Int) (b : Int) : Int = if a <= b then a else b

def max (a : Int) (b : Int) : Int = if a >= b then a else b

def intToFloat (n : Int) : Float = prim_intToFloat n

def sqrt (x : Float) : Float = prim_sqrt x

def floor (x : Float) : Int = prim_floor x

def ceil (x : Float) : Int = prim_ceil x

-- Halves round away from zero.
def round (x : Float) : Int = prim_round x

def natToInt (n : Nat) : Int =
  match n with
  | Z -> 0
  | S m -> 1 + natToInt m

-- Negative numbers map to Z.
def intToNat (n : Int) : Nat = if n <= 0 then Z else S (intToNat (n - 1))
