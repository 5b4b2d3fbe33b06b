def main = [1, 2, "three"]
