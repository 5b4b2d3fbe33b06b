-- An implicit argument given as `_` that nothing determines.
def main : Int = length {_} []
