def main : Int = 1

def other : Int = 2 )
