-- A data type may occur in its constructors' fields only strictly positively: with
-- MkBad, a program could loop without recursion (and so prove anything).
data Bad = MkBad (Bad -> Int)
