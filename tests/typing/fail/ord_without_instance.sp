data Color = Red | Green

def main = Red < Green
