def main = "a" + 1
