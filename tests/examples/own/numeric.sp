-- Functions the numeric tier runs (machine::numeric) and a fold the machine loops in
-- place (machine::loops): stopped at any step, each reads back and resumes.
def count (n : Int) : Int = if n == 0 then 0 else 1 + count (n - 1)
def loop (n : Int) (acc : Int) : Int = if n == 0 then acc else loop (n - 1) (acc + n)
def fib (n : Int) : Int = if n < 2 then n else fib (n - 1) + fib (n - 2)
def gcd (a : Int) (b : Int) : Int = if b == 0 then a else gcd b (a % b)
def half (x : Float) (n : Int) : Float = if n == 0 then x else half (x / 2.0) (n - 1)
def isEven (n : Int) : Bool = if n == 0 then True else isOdd (n - 1)
def isOdd (n : Int) : Bool = if n == 0 then False else isEven (n - 1)
def tak (x : Int) (y : Int) (z : Int) : Int =
  if y < x then tak (tak (x - 1) y z) (tak (y - 1) z x) (tak (z - 1) x y) else z

def main =
  ( count 60
  , loop 80 0
  , fib 9
  , gcd 1071 462
  , half 1024.0 10
  , tak 6 3 1
  , sum (map (\x -> x * x) (filter (\x -> x % 2 == 0) (range 0 50)))
  , (isEven 77, isOdd 77)
  )
