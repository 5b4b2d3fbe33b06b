-- `++` on strings is the primitive (it needs both operands); on lists it is the
-- prelude's `append` (lazy in its second operand), whatever the file calls `append`.
def append (x : Int) (y : Int) : Int = x * y

def strings : String = "a" ++ "b" ++ "c"
def lists : List Int = [1] ++ [2, 3] ++ []
def poly {a : Type} (xs : List a) (ys : List a) : List a = xs ++ ys ++ xs

-- The operands' type is found only after the operator is met: the operator is decided
-- at the end.
def late_string : String = let h = \x y -> x ++ y in h "p" "q"
def late_list : List Int = let h = \x y -> x ++ y in h [1] [2]

-- Lazy in the second list, never in a string's.
def lazy_tail : List Int = take 2 ([7] ++ repeat 8)
def lazy_error : List Int = take 1 ([5] ++ error "never evaluated")
def nested : List (List Int) = [[1] ++ [2]] ++ [[]]

-- Through an alias of the list type.
def Ints : Type = List Int
def aliased (xs : Ints) : Ints = xs ++ xs

def main = (strings, lists, poly [True] [False], late_string, late_list, lazy_tail,
  lazy_error, nested, aliased [4], append 6 7)
