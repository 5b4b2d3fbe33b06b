-- `(x : xs)` is an annotation: `xs` is not a type. Cons is `::`.
def f (x : Int) (xs : List Int) : List Int = (x : xs)
