def main = 1 && True
