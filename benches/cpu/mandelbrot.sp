-- Mandelbrot: escape times over a grid of the complex plane; per-row counts of the
-- points that stay bounded, and the total number of iterations.

def width : Int = 320

def height : Int = 240

def maxIter : Int = 100

def escape (cr : Float) (ci : Float) : Int = go 0.0 0.0 0
  where
    go zr zi n =
      if n == maxIter then maxIter
      else
        let zr2 = zr * zr in
        let zi2 = zi * zi in
        if zr2 + zi2 > 4.0 then n else go (zr2 - zi2 + cr) (2.0 * zr * zi + ci) (n + 1)

def row (y : Int) : List Int =
  map (\x -> escape (-2.1 + 3.0 * intToFloat x / intToFloat width) ci) (range 0 width)
  where
    ci = -1.2 + 2.4 * intToFloat y / intToFloat height

def every {a : Type} (k : Int) (xs : List a) : List a =
  map snd (filter (\p -> fst p % k == 0) (zip (range 0 (length xs)) xs))

def picture (r : List Int) : String =
  concatStrings (map (\n -> if n == maxIter then "#" else if n > 10 then "+" else ".") (every 8 r))

def main : String =
  join "\n" (pictures ++ ["inside: " ++ showInt inside, "iterations: " ++ showInt total])
  where
    rows = map row (range 0 height)
    pictures = map picture (every 16 rows)
    inside = sum (map (\r -> length (filter (\n -> n == maxIter) r)) rows)
    total = sum (map sum rows)
