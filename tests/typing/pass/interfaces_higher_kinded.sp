-- An interface over type constructors (first-order unification finds `f`), nested
-- records with derived instances, and a Maybe field as JSON null.
interface Functor (f : Type -> Type) where
  fmap : {a : Type} -> {b : Type} -> (a -> b) -> f a -> f b

instance Functor List where
  fmap g xs = map g xs

instance Functor Maybe where
  fmap g m = match m with
    | Nothing -> Nothing
    | Just x -> Just (g x)

def double {f : Type -> Type} : Functor f => f Int -> f Int = \xs -> fmap (\x -> x * 2) xs

record Pt (a : Type) = { x : a, y : a } deriving (Show, Eq, Ord, ToJson, FromJson)

record Line = { from : Pt Int, to : Pt Int, label : Maybe String } deriving (Show, ToJson, FromJson)

def l : Line = { from = { x = 0, y = 0 }, to = { x = 3, y = -4 }, label = Nothing }

def main = (double [1, 2], double (Just 5), show l, renderJson (toJson l),
  show (fromJson (toJson l) : Either String Line), l.to.y, { l | label = Just "a" }.label)
