def main = 1 == "1"
