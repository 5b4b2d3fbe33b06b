-- Every syntactic form of LANGUAGE.md sections 1-3 and 5, for parser and printer tests.
{- A block comment {- that nests -} and ends here. -}

data Shape = Circle Float | Rect Float Float

data Tree (a : Type) = Leaf a | Node (Tree a) (Tree a)

data Vect (n : Nat) (a : Type) = VNil | VCons a (Vect n a)

def area (s : Shape) : Float =
  match s with
  | Circle r -> 3.14159 * r * r
  | Rect w h -> w * h

def depth {a : Type} (t : Tree a) : Int =
  match t with
  | Leaf _ -> 1
  | Node l r -> 1 + max (depth l) (depth r)

def classify (n : Int) : String =
  match n with
  | 0 -> "zero"
  | -1 -> "minus one"
  | _ -> if n < 0 then "negative" else "positive"

def greet (name : String) : String =
  match name with
  | "" -> "hello, stranger"
  | other -> "hello, " ++ other ++ "!\n\t\"quoted\" \\ \u{1F600}"

def firstTwo {a : Type} (xs : List a) : Maybe (Pair a a) =
  match xs with
  | Cons x (Cons y _) -> Just (x, y)
  | _ -> Nothing

def swap {a : Type} {b : Type} (p : Pair a b) : Pair b a =
  match p with
  | (x, y) -> (y, x)

def listShape (xs : List Int) : String =
  match xs with
  | [] -> "empty"
  | [_] -> "one"
  | [_, _] -> "two"
  | _ -> "many"

def unitish (u : Unit) : Int =
  match u with
  | () -> 0

def polyId : {a : Type} -> a -> a = \{a} x -> x

def explicitApp : Int = polyId {Int} 5

def applyTwice (f : Int -> Int) (x : Int) : Int = f (f x)

def dep : (n : Nat) -> Type = \n -> match n with | Z -> Int | S _ -> String

def universes : Type 1 = Type

def annotated = (42 : Int)

def holes : _ = 3

def inc x = x + 1

def grouped (x y : Int) : Int = x * y - x / y % 2

def ops (a : Int) (b : Int) : Bool =
  a + b * 2 - -3 == 7 && a != b || a < b && a <= b || a > b || a >= b

def strs : String = "a" ++ "b" ++ "c"

def lets : Int =
  let x = 1 in
  let f (y : Int) : Int = y + x in
  let g : Int -> Int = \z -> z * 2 in
  let loop (n : Int) : Int = if n <= 0 then 0 else loop (n - 1) in
  f (g x) + loop 3

def lambdas = \(x : Int) {b : Type} (y : b) -> \(_ : Int) -> x

def floats = (1.5, 2.0, 1e-9, 6.02e23, 0x2A, 1_000_000, -7 / 2)

def tuples = ((), (1, "two"), (1, 2, 3), [[1], [], [2, 3]])

def nested = Node (Leaf (-1)) (Node (Leaf 2) (Leaf 3))

def main =
  ( area (Rect 2.0 3.0)
  , depth nested
  , classify (-5)
  , greet "you"
  , firstTwo [1, 2, 3]
  , swap (1, "a")
  , listShape [1, 2]
  , lets
  )
