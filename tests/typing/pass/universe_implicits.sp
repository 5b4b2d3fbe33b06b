-- Implicit arguments in larger universes take larger types; types that unfold to
-- small ones are small.
def poly {a : Type 1} (x : a) : a = x
def big {a : Type 2} (x : a) : a = x

def up1 (A : Type 1) : Type 1 = A

def T : Type 1 = poly Int
def U : Type 2 = big Type
def small : up1 Int = 3

def twice {a : Type} (f : a -> a) (x : a) : a = f (f x)

def main = (poly 3, id small, [small, 4], (small, twice (\n -> n + 1) small))
