-- Malformed JSON where the program needs it: the error names line and column.
def main : Json = either error id (parseJson "{\n  \"a\": [1, 2,],\n  \"b\": true\n}")
