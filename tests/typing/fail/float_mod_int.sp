def main = 2.5 % 2
