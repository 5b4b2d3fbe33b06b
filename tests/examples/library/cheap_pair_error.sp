-- The field a lazy fold's step would fail on fails when it is needed, at its place.
def main = snd (foldl (\acc x -> (fst acc + x, snd acc / x)) (0, 1) [0, 1, 2, 3])
