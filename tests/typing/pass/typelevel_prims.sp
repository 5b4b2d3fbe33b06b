-- Type-level evaluation runs prelude functions and primitives (Int arithmetic and
-- comparison, String length) on the machine.
def Vec (n : Nat) (a : Type) : Type =
  match n with
  | Z -> Unit
  | S m -> Pair a (Vec m a)

def v : Vec (intToNat (1 + 2)) Int = (1, 2, 3, ())

def w : Vec (intToNat (strLength "ab")) String = ("a", "b", ())

def Small (n : Int) : Type = if n * n < 50 then Int else String

def s : Small 7 = 49

def t : Small 8 = "too big"

def main = (v, w, s, t)
