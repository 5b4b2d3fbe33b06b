-- The prelude's data types. Syntax refers to several of them directly: `if`, `&&`
-- and `||` match on Bool, `()` is Unit's constructor, `(a, b)` is MkPair, list
-- literals are Cons and Nil.

data Bool = False | True deriving (Show, Eq, Ord)

data Unit = MkUnit deriving (Ord)

data Pair (a : Type) (b : Type) = MkPair a b deriving (Ord)

data Maybe (a : Type) = Nothing | Just a deriving (Show, Eq, Ord)

data Either (a : Type) (b : Type) = Left a | Right b deriving (Show, Eq, Ord, ToJson, FromJson)

data List (a : Type) = Nil | Cons a (List a) deriving (Ord)

data Nat = Z | S Nat deriving (Show, Eq, Ord, ToJson, FromJson)
