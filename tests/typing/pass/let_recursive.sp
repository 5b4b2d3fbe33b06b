-- Local lets are always recursive.
def main =
  let fact (n : Int) : Int = if n <= 1 then 1 else n * fact (n - 1) in
  let ones : List Int = Cons 1 ones in
  let fib : Int -> Int = \n -> if n < 2 then n else fib (n - 1) + fib (n - 2) in
  (fact 10, take 3 ones, fib 15)
