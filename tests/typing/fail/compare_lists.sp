def main = [1, 2] < [3]
