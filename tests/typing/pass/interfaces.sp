-- Interfaces, instances, constraints and deriving (issue 29).
data Color = Red | Green | Blue deriving (Show, Eq, Ord)

record Sample = { name : String, reads : Int } deriving (Show, Eq, Ord, ToJson, FromJson)

data Tree (a : Type) = Leaf | Node (Tree a) a (Tree a) deriving (Show, Eq, Ord)

interface Describe (a : Type) where
  describe : a -> String
  tag : a -> Int

instance Describe Color where
  describe c = "the colour " ++ show c
  tag c = 7

instance Describe a => Describe (List a) where
  describe xs = join "; " (map describe xs)
  tag xs = length xs

def loud {a : Type} : Show a => a -> String = \x -> show x ++ "!"

def both {a : Type} : (Show a, Ord a) => a -> a -> String =
  \x y -> if x < y then show x else show y

def s : Sample = { name = "S1", reads = 60000 }

def insert (x : Int) (t : Tree Int) : Tree Int =
  match t with
  | Leaf -> Node Leaf x Leaf
  | Node l y r -> if x < y then Node (insert x l) y r else Node l y (insert x r)

def main = [
  show Red,
  show [Just Red, Nothing],
  show (Just (-2)),
  show s,
  show (Just s),
  show "hi",
  show (1, (2.5, "x")),
  show (Left 3 : Either Int String),
  show (foldr insert Leaf [2, 1, 3]),
  loud Blue,
  both Green Red,
  show (compare Red Blue),
  show (sortOn (\x -> x.reads) [{ name = "b", reads = 3 }, s, { name = "a", reads = 1 }]),
  show (sortOn (\c -> c) [Blue, Red, Green, Red]),
  describe [Red, Blue],
  show (tag Green + tag [Red]),
  show ([1, 2] < [1, 3], (1, "b") > (1, "a"), Nothing < Just 1, "b" >= "a", Leaf < Node Leaf 1 Leaf),
  renderJson (toJson s),
  renderJson (toJson [Just 1, Nothing]),
  show (fromJson (toJson s) : Either String Sample),
  show (fromJson (JObj [("name", JStr "x")]) : Either String Sample),
  show (fromJson (JObj [("name", JStr "x"), ("reads", JStr "y")]) : Either String Sample),
  show (Red == Red)
  ]
