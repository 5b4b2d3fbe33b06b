record Sample = { name : String, reads : Int }

def s : Sample = { name = "a" }

def main = s
