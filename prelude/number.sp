-- Numbers: Int helpers, Float conversions, Nat. (`min`, `max` and `abs` are in
-- order.sp, through `Ord` and `Signed`.)

-- `div a b` rounds the quotient down and `mod a b` has the sign of `b`
-- (`a == b * div a b + mod a b`); `/` and `%` truncate toward zero.
def div (a : Int) (b : Int) : Int = prim_divFloor a b

def mod (a : Int) (b : Int) : Int = prim_modFloor a b

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
