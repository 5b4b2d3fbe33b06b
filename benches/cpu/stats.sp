-- Statistics: generate measurements, then one pass with a tuple accumulator (count,
-- sum, sum of squares, minimum, maximum), mean and variance, a histogram, and Welford's
-- online algorithm for comparison.

def sampleCount : Int = 250000

def buckets : Int = 10

def nextSeed (s : Int) : Int = (s * 1103515245 + 12345) % 2147483648

def unit (s : Int) : Float = intToFloat s / 2147483648.0

def samples (n : Int) (seed : Int) : List Float =
  if n == 0 then []
  else 50.0 + 30.0 * (unit s1 + unit s2 - 1.0) :: samples (n - 1) s2
  where
    s1 = nextSeed seed
    s2 = nextSeed s1

def summary (xs : List Float) (first : Float) : Pair Int (Pair Float (Pair Float (Pair Float Float))) =
  foldl step (0, 0.0, 0.0, first, first) xs
  where
    step acc x =
      match acc with
      | (n, total, squares, lo, hi) ->
        (n + 1, total + x, squares + x * x, if x < lo then x else lo, if x > hi then x else hi)

def welford (xs : List Float) : Pair Int (Pair Float Float) =
  foldl step (0, 0.0, 0.0) xs
  where
    step acc x =
      match acc with
      | (count, m, m2) ->
        let c = count + 1 in
        let delta = x - m in
        let m1 = m + delta / intToFloat c in
        (c, m1, m2 + delta * (x - m1))

def main : String =
  match summary xs (fromMaybe 0.0 (head xs)) with
  | (n, total, squares, lo, hi) ->
    let mean = total / intToFloat n in
    let variance = squares / intToFloat n - mean * mean in
    let width = (hi - lo) / intToFloat buckets in
    let bucket x = if floor ((x - lo) / width) < buckets - 1 then floor ((x - lo) / width) else buckets - 1 in
    let histogram = map (\b -> length (filter (\x -> bucket x == b) xs)) (range 0 buckets) in
    let above = filter (\x -> x > mean + sqrt variance) xs in
    join "\n"
      [ "n = " ++ showInt n
      , "mean = " ++ showFloat mean
      , "variance = " ++ showFloat variance
      , "stddev = " ++ showFloat (sqrt variance)
      , "min = " ++ showFloat lo ++ ", max = " ++ showFloat hi
      , (match welford xs with
        | (count, m, m2) -> "welford mean = " ++ showFloat m ++ ", variance = " ++ showFloat (m2 / intToFloat count))
      , "histogram = " ++ show histogram
      , "above one sigma: " ++ showInt (length above)
      ]
  where
    xs = samples sampleCount 11
