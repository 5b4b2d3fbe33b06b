-- Definitions marked `total` whose recursion is not structural are refused (issue
-- 31): a value of the empty type made by recursion, pi-forall's `loop`, and a count
-- down on an `Int` (not a data type, so not structural).
data Nat = Z | S Nat
data Void = Absurd Void

total def absurd : Void = absurd

total def loop (n : Nat) : Nat = loop n

total def count (i : Int) : Int = if i <= 0 then 0 else count (i - 1)

def main = 1
