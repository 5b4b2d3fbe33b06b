def main = "ab" * 3
