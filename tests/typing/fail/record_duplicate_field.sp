record Sample = { name : String, reads : Int, name : Int }

def main = 1
