def single {a : Type} (x : a) : List a = [x]

def main = single {Int} "x"
