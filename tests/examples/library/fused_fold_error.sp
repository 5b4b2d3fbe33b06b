-- A fused fold fails where the fold over the list would: at the division, for the
-- first element that reaches it.
def main = sum (map (\x -> 10 / x) (filter (\x -> x < 5) (range (0 - 3) 10)))
