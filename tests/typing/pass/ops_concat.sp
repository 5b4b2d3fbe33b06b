-- ++ on Strings and on Lists.
def greet (n : String) : String = "hello, " ++ n ++ "!"

def main = (greet "you", [1, 2] ++ [3] ++ [], ["a"] ++ ["b"], [] ++ [True], "" ++ "")
