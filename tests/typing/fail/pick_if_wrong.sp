def Pick (b : Bool) : Type = if b then Int else String

def pick (b : Bool) : Pick b = if b then "seven" else "seven"

def main = pick False
