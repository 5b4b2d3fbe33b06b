def greet (name : Strng) : String = "hi " ++ name

def main = greet "x"
