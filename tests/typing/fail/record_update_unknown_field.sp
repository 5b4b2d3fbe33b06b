record Sample = { name : String, reads : Int }

def s : Sample = { name = "a", reads = 1 }

def main = { s | mapped = 0 }
