data Color = Red | Green

def main = show Red
