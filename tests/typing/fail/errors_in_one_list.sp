def main = [1, "a", True]
