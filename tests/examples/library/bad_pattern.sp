-- A malformed glob pattern is an error that shows the pattern.
def main : List String = glob "data/[a.csv"
