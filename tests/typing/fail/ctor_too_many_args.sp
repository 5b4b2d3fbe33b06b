def main = MkPair 1 2 3
