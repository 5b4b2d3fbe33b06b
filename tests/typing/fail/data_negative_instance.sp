-- `Wrap Neg T` holds `Neg T`, which holds `T -> Int`.
data Wrap (f : Type -> Type) (a : Type) = W (f a)
data Neg (a : Type) = MkNeg (a -> Int)
data T = Leaf | MkT (Wrap Neg T)
