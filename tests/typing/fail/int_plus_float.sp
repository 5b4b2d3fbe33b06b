def main = 1 + 2.5
