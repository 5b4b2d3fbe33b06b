-- Reading a file that does not exist is an error at the call.
def main : String = readFile "missing.txt"
