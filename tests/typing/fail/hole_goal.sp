def f (n : Int) (s : String) : Bool = ?goal

def main = f 1 "x"
