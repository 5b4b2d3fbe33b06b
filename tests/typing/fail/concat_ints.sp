def main = 1 ++ 2
