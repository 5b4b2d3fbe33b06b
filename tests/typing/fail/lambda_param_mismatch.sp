def f : Int -> Int = \(x : String) -> 1

def main = f 1
