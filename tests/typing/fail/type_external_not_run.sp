-- Type checking never runs an external: evaluating the type T needs a call to delay,
-- which is an error (and the check does not wait 100 s).
def T : Type = if delay 100000 True then Int else String

def x : T = 1

def main = x
