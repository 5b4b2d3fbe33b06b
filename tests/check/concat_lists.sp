-- `++` on lists is the prelude's `append`, even in a file that defines its own.
def append (x : String) : String = x ++ "!"
def main = ([1] ++ [2], append "a")
