def main = let counter = 1 in countr + 1
