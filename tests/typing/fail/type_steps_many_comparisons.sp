-- Church numerals compared at 10^5 (typeseval's test): each evaluation is small, but
-- there are about 10^5 of them. The type-level step limit counts every step of the
-- comparison in the definition, so the check stops within its budget, at the
-- definition, instead of running for minutes (issue 31).
def Nat : Type 1 = (a : Type) -> (a -> a) -> a -> a
def zero : Nat = \a s z -> z
def suc (n : Nat) : Nat = \a s z -> s (n a s z)
def add (m : Nat) (n : Nat) : Nat = \a s z -> m a s (n a s z)
def mul (m : Nat) (n : Nat) : Nat = \a s z -> m a (n a s) z
def ten : Nat = suc (suc (suc (suc (suc (suc (suc (suc (suc (suc zero)))))))))
def hundred : Nat = mul ten ten
def thousand : Nat = mul ten hundred
data Eq (x : Nat) (y : Nat) = MkEq ((P : Nat -> Type) -> P x -> P y)
def refl (x : Nat) : Eq x x = MkEq (\P p -> p)
def tenk : Nat = mul ten thousand
def proof : Eq (mul tenk ten) (suc (mul ten tenk)) = refl (mul ten tenk)
def main = 1
