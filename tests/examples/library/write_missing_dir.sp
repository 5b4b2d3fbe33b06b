-- writeFile into a folder that does not exist is an error.
def main : String = writeFile "no-such-folder/out.txt" "x"
