def five : Int = 5

def main = five 3
