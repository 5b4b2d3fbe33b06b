-- `if` on a variable refines the goal as well.
def Pick (b : Bool) : Type = if b then Int else String

def pick (b : Bool) : Pick b = if b then 7 else "seven"

def main = (pick True, pick False)
