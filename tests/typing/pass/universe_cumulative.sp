-- A type in Type n is also in Type (n+1).
def up (A : Type 2) : Type 2 = A

def useUp : Type 2 = up (Type 1)

def alsoUp : Type 2 = up Int

def upType : Type 1 = Int

def idT {A : Type 1} (x : A) : A = x

def five : Int = idT {Int} 5

def main = (five, idT "x")
