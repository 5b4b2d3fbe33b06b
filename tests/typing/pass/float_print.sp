-- Float operations stay Float; intToFloat converts explicitly.
def mean (xs : List Float) : Float = foldl (\a b -> a + b) 0.0 xs / intToFloat (length xs)

def main = (mean [1.0, 2.0, 4.5], 1.0 / 0.0, 0.1 + 0.2, sqrt 16.0, round 2.5, floor (-0.5))
