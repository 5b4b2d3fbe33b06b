def main = Just 1 != Just "1"
