-- `f` is any type function, perhaps a negative one (Agda and Lean reject this too).
data Fix (f : Type -> Type) = In (f (Fix f))
