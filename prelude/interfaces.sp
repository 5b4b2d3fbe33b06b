-- Interfaces and their instances for the prelude's types: `Show`, `Eq`, `Ord`,
-- `ToJson` and `FromJson` (docs/interfaces.md). The helpers named `derive'...` are
-- what `deriving` and the ordering operators elaborate to.

-- The result of `compare`.
data Ordering = LT | EQ | GT deriving (Show, Eq, Ord, ToJson, FromJson)

-- Types whose values have a text: `show v` is what `spindle run` prints for `v` inside
-- a larger value (a `String` quoted).
interface Show (a : Type) where
  show : a -> String

-- Types whose values can be compared with `==`. `==` is structural on every type;
-- `Eq` exists for constraints and `deriving`, and has no methods.
interface Eq (a : Type)

-- Totally ordered types: `compare`, and `<`, `<=`, `>`, `>=` on them.
interface Ord (a : Type) where
  compare : a -> a -> Ordering

-- Types whose values can be written as JSON.
interface ToJson (a : Type) where
  toJson : a -> Json

-- Types whose values can be read from JSON; `Left` names what did not fit.
interface FromJson (a : Type) where
  fromJson : Json -> Either String a

instance Show Int where
  show = showInt

instance Show Float where
  show = showFloat

instance Show String where
  show = prim_showString

instance Show Char where
  show = prim_showChar

instance Show Unit where
  show u = "()"

instance Show a => Show (List a) where
  show xs = "[" ++ join ", " (map show xs) ++ "]"

instance (Show a, Show b) => Show (Pair a b) where
  show p = "(" ++ show (fst p) ++ ", " ++ derive'tupleTail (prim_isPair (snd p)) (show (snd p)) ++ ")"

instance Eq Int

instance Eq Float

instance Eq String

instance Eq Char

instance Eq Unit

instance Eq a => Eq (List a)

instance (Eq a, Eq b) => Eq (Pair a b)

instance Ord Int where
  compare x y = prim_compare x y

instance Ord Float where
  compare x y = prim_compare x y

instance Ord String where
  compare x y = prim_compare x y

instance Ord Char where
  compare x y = prim_compare x y

-- `Unit`, `List` and `Pair` derive `Ord` (types.sp): lists compare
-- lexicographically, pairs component by component.

instance ToJson Int where
  toJson n = JNum (intToFloat n)

instance ToJson Float where
  toJson x = JNum x

instance ToJson String where
  toJson s = JStr s

-- A one-character string.
instance ToJson Char where
  toJson c = JStr (charToString c)

instance ToJson Bool where
  toJson b = JBool b

instance ToJson Unit where
  toJson u = JNull

instance ToJson Json where
  toJson j = j

instance ToJson a => ToJson (List a) where
  toJson xs = JArr (map toJson xs)

-- `Nothing` is `null`, `Just x` is `x` (an optional field of a record).
instance ToJson a => ToJson (Maybe a) where
  toJson m = match m with
    | Nothing -> JNull
    | Just x -> toJson x

instance (ToJson a, ToJson b) => ToJson (Pair a b) where
  toJson p = JArr [toJson (fst p), toJson (snd p)]

instance FromJson Int where
  fromJson j = match j with
    | JNum x -> (if intToFloat (floor x) == x then Right (floor x) else Left ("expected an integer, found " ++ renderJson j))
    | _ -> Left ("expected an integer, found " ++ renderJson j)

instance FromJson Float where
  fromJson j = match j with
    | JNum x -> Right x
    | _ -> Left ("expected a number, found " ++ renderJson j)

instance FromJson String where
  fromJson j = match j with
    | JStr s -> Right s
    | _ -> Left ("expected a string, found " ++ renderJson j)

instance FromJson Char where
  fromJson j = match j with
    | JStr s -> (match chars s with
      | [c] -> Right c
      | _ -> Left ("expected a one-character string, found " ++ renderJson j))
    | _ -> Left ("expected a one-character string, found " ++ renderJson j)

instance FromJson Bool where
  fromJson j = match j with
    | JBool b -> Right b
    | _ -> Left ("expected true or false, found " ++ renderJson j)

instance FromJson Unit where
  fromJson j = match j with
    | JNull -> Right ()
    | _ -> Left ("expected null, found " ++ renderJson j)

instance FromJson Json where
  fromJson j = Right j

instance FromJson a => FromJson (List a) where
  fromJson j = match j with
    | JArr xs -> derive'list 0 xs
    | _ -> Left ("expected an array, found " ++ renderJson j)

instance FromJson a => FromJson (Maybe a) where
  fromJson j = match j with
    | JNull -> Right Nothing
    | _ -> (match fromJson j with
      | Left e -> Left e
      | Right x -> Right (Just x))

instance (FromJson a, FromJson b) => FromJson (Pair a b) where
  fromJson j = match j with
    | JArr [x, y] -> derive'arg 0 [x, y] (\a -> derive'arg 1 [x, y] (\b -> Right (a, b)))
    | _ -> Left ("expected an array of two, found " ++ renderJson j)

-- `c`, or `d` where `c` is `EQ`: comparing field after field.
def derive'then (c : Ordering) (d : Ordering) : Ordering =
  match c with
  | EQ -> d
  | _ -> c

-- Two constructors' positions compared.
def derive'compareInt (i : Int) (j : Int) : Ordering =
  if i < j then LT else if i == j then EQ else GT

-- Lists compared lexicographically.
def derive'compareList {a : Type} {d : Ord a} (xs : List a) (ys : List a) : Ordering =
  match xs with
  | Nil -> (match ys with
    | Nil -> EQ
    | _ -> LT)
  | Cons x xt -> (match ys with
    | Nil -> GT
    | Cons y yt -> derive'then (compare x y) (derive'compareList xt yt))

def derive'lt {a : Type} {d : Ord a} (x : a) (y : a) : Bool = compare x y == LT

def derive'le {a : Type} {d : Ord a} (x : a) (y : a) : Bool = compare x y != GT

def derive'gt {a : Type} {d : Ord a} (x : a) (y : a) : Bool = compare x y == GT

def derive'ge {a : Type} {d : Ord a} (x : a) (y : a) : Bool = compare x y != LT

def derive'show {a : Type} {d : Show a} (x : a) : String = show x

def derive'compare {a : Type} {d : Ord a} (x : a) (y : a) : Ordering = compare x y

def derive'toJson {a : Type} {d : ToJson a} (x : a) : Json = toJson x

-- A constructor's argument: in parentheses if it is an application or negative.
def derive'showArg (s : String) : String = prim_showArg s

-- The second component of a pair printed flat when it is a pair itself (its text is
-- then the pair instance's, in parentheses): `(1, (2, 3))` prints `(1, 2, 3)`.
def derive'tupleTail (pair : Bool) (s : String) : String =
  if pair then substring 1 (strLength s - 2) s else s

-- Reading a record: `k` on the object's entries.
def derive'object {b : Type} (what : String) (j : Json) (k : List (Pair String Json) -> Either String b) : Either String b =
  match j with
  | JObj kvs -> k kvs
  | _ -> Left ("expected an object for " ++ what ++ ", found " ++ renderJson j)

-- Reading one field of a record; a missing one is read as `null` if its type has a
-- value for that (an optional field: `Maybe`), else it is an error.
def derive'field {a : Type} {b : Type} {d : FromJson a} (name : String) (kvs : List (Pair String Json)) (k : a -> Either String b) : Either String b =
  match lookup name kvs with
  | Nothing -> (match fromJson JNull with
    | Right x -> k x
    | Left e -> Left ("missing field `" ++ name ++ "`"))
  | Just v -> (match fromJson v with
    | Left e -> Left ("field `" ++ name ++ "`: " ++ e)
    | Right x -> k x)

-- The constructor's name of a JSON-encoded value.
def derive'tag (what : String) (j : Json) : Either String String =
  match j with
  | JStr s -> Right s
  | JObj kvs -> (match lookup "constructor" kvs with
    | Just (JStr s) -> Right s
    | _ -> Left ("expected a constructor of " ++ what ++ ", found " ++ renderJson j))
  | _ -> Left ("expected a constructor of " ++ what ++ ", found " ++ renderJson j)

def derive'unknown {b : Type} (what : String) (tag : String) : Either String b =
  Left ("`" ++ tag ++ "` is not a constructor of " ++ what)

-- Reading the fields of a constructor.
def derive'args {b : Type} (j : Json) (k : List Json -> Either String b) : Either String b =
  match jsonField "fields" j with
  | Just (JArr xs) -> k xs
  | _ -> Left ("missing `fields` in " ++ renderJson j)

-- Reading field `i` of a constructor.
def derive'arg {a : Type} {b : Type} {d : FromJson a} (i : Int) (xs : List Json) (k : a -> Either String b) : Either String b =
  match nth i xs with
  | Nothing -> Left ("missing field " ++ showInt i)
  | Just v -> (match fromJson v with
    | Left e -> Left ("field " ++ showInt i ++ ": " ++ e)
    | Right x -> k x)

-- Reading the elements of an array.
def derive'list {a : Type} {d : FromJson a} (i : Int) (xs : List Json) : Either String (List a) =
  match xs with
  | Nil -> Right Nil
  | Cons x rest -> (match fromJson x with
    | Left e -> Left ("element " ++ showInt i ++ ": " ++ e)
    | Right y -> (match derive'list (i + 1) rest with
      | Left e -> Left e
      | Right ys -> Right (Cons y ys)))
