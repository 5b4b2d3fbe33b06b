def f : Int = \x -> x

def main = f
