-- A type and a constructor may share a name (issue 30; docs/syntax.md section 7): in
-- an expression the name is the constructor, where a type is expected (an annotation,
-- a binder's type, a field's type, an argument of `List`, an interface's parameter)
-- it is the type.
data Body = Body Float Float deriving (Show, Eq, Ord, ToJson, FromJson)

data Tag = Tag deriving (Show, Eq, Ord, ToJson, FromJson)

data Wrap (a : Type) = Wrap a deriving (Show, Eq)

record Point = { x : Float, y : Float } deriving (Show, Eq, ToJson)

interface Weighed (a : Type) where
  weight : a -> Float

instance Weighed Body where
  weight b = match b with
    | Body m _ -> m

def heaviest (bs : List Body) : Float = foldl (\acc b -> if weight b > acc then weight b else acc) 0.0 bs

def idBody (b : Body) : Body = b

def pick {t : Type} (x : t) : t = x

data Box (a : Type) = Box a

interface Functor (f : Type -> Type) where
  fmap : {a : Type} -> {b : Type} -> (a -> b) -> f a -> f b

instance Functor Box where
  fmap g b = match b with
    | Box x -> Box (g x)

-- A type named like a constructor of another type.
data Shape = Circle Float | Square Float

data Circle = MkCircle Float

def unitCircle : Pair Circle Shape = (MkCircle 1.0, Circle 1.0)

-- Records are unaffected: their constructor has no name a program writes.
record Velocity = { dx : Float, dy : Float }

def speed (v : Velocity) : Float = sqrt (v.dx * v.dx + v.dy * v.dy)

def main =
  ( show (Body 1.0 2.0), Body 1.0 2.0 == Body 1.0 2.0, compare (Body 1.0 2.0) (Body 1.0 3.0)
  , toJson (Body 1.0 2.0), (fromJson (toJson (Body 1.0 2.0)) : Either String Body)
  , Tag, show Tag, (fromJson (toJson Tag) : Either String Tag)
  , Wrap (Wrap Tag), show (Wrap 3)
  , { x = 1.0, y = 2.0 }
  , heaviest [Body 1.0 0.0, Body 5.0 0.0]
  , idBody (Body 0.5 0.5)
  , pick {Body} (Body 2.0 2.0)
  , (\(b : Body) -> b) (Body 9.0 9.0)
  , let q : Body = Body 3.0 3.0 in q
  , fmap (\n -> n * 2) (Box 21)
  , unitCircle
  , speed { dx = 3.0, dy = 4.0 }
  )
