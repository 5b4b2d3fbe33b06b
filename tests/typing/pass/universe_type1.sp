-- Type : Type 1, and Type 1 : Type 2.
def T0 : Type = Int

def T1 : Type 1 = Type

def T2 : Type 2 = Type 1

def pickType (b : Bool) : Type = if b then T0 else String

def main = ((3 : T0), ("s" : pickType False))
