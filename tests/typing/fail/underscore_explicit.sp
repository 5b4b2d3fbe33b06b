def x : _ = _

def main = 1
