def main = lenght [1, 2, 3]
