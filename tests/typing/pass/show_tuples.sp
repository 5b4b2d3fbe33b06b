-- `show` prints tuples flat exactly where `spindle run` does, whatever text an
-- element's own `Show` instance gives.
data Odd = MkOdd
instance Show Odd where
  show o = "(odd)"
def main = (show (1, (2, 3)), show (1, MkOdd), show ((1, 2), 3), show (1, ()), show [(1, (2, "x"))])
