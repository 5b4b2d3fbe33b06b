def name (n : Int) : String = n + 1

def main = name 1
