-- `{A}` gives an implicit argument explicitly.
def empty {a : Type} : List a = []

def single {a : Type} (x : a) : List a = [x]

def main = (length (empty {Int}), single {Float} 2.5, const {Int} {String} 1 "x", map {Int} {Int} (\x -> x + 1) [1])
