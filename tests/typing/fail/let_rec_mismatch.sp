def main : Int =
  let loop (n : Int) : Int = if n == 0 then "done" else loop (n - 1) in
  loop 3
