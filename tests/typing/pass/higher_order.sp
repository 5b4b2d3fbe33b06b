-- Higher-order functions: functions as arguments and results.
def compose3 {a : Type} {b : Type} {c : Type} {d : Type} (f : c -> d) (g : b -> c) (h : a -> b) : a -> d =
  \x -> f (g (h x))

def adder (n : Int) : Int -> Int = \x -> x + n

def applyAll {a : Type} (fs : List (a -> a)) (x : a) : a = foldl (\acc f -> f acc) x fs

def main =
  ( compose3 showInt (adder 1) (\x -> x * 2) 5
  , applyAll [adder 1, adder 10, \x -> x * 3] 0
  , zipWith (\f x -> f x) [adder 1, adder 2] [10, 20]
  , map (flip (\a b -> a - b) 1) [5, 6]
  , foldr compose id [adder 1, adder 2] 0
  )
