-- Type checking never runs an external: the type T is stuck on the call to delay,
-- so 1 is not known to have type T (and the check does not wait 100 s).
def T : Type = if delay 100000 True then Int else String

def x : T = 1

def main = x
