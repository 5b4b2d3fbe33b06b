-- Past the largest code point.
def main = (ord 'a', chr (0 - 1))
