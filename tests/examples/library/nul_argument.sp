-- A NUL byte can never be part of an argument.
def main : String = run "echo" ["a\0b"]
