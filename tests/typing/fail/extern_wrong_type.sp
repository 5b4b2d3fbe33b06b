-- The host's delay has type {a : Type} -> Int -> a -> a; declaring it with
-- another type must be rejected (else main : Int prints a partial application).
extern delay : Int -> Int

def main : Int = delay 1
