def f x = x

def main = 1
