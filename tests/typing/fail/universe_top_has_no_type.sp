-- Type 1000 is the largest universe: it may be written where a type goes, but it is
-- no value of any type, and a function type over it would live past the top.
def ok (A : Type 1000) (x : A) : A = x

def u = Type 1000

def T : Type 1000 = (A : Type 1000) -> A
