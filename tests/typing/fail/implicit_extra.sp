def f {a : Type} (x : a) : a = x

def main = f {Int} {Int} 1
