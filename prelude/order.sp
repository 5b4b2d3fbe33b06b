-- Ordering through `Ord` (`min`, `max`, `minimum`, `maximum`, `sort`, `sortOn`), and
-- `abs` through `Signed`.
--
-- Sorting is a stable merge sort. Where the elements (or `sortOn`'s keys) are
-- numbers, strings, or data built from them whose `Ord` is derived, the machine sorts
-- them itself (`prim_sortOrdered`), which gives the same order; otherwise `sortBy`
-- with `compare` does.

-- Whether every element of a list is evaluated: it evaluates them (each to its
-- outermost constructor or number), first to last.
def list'whnfAll {a : Type} (xs : List a) : Bool =
  match xs with
  | [] -> True
  | Cons x rest -> prim_seq x (list'whnfAll rest)

-- The smaller of two values (the first where they are equal).
def min {a : Type} {d : Ord a} (x : a) (y : a) : a = if derive'le x y then x else y

-- The larger of two values (the second where they are equal).
def max {a : Type} {d : Ord a} (x : a) (y : a) : a = if derive'le x y then y else x

-- The least element (the first of the least, where several are equal).
def minimum {a : Type} {d : Ord a} (xs : List a) : Maybe a =
  match xs with
  | [] -> Nothing
  | Cons x rest -> Just (foldlStrict min x rest)

-- The greatest element (the last of the greatest).
def maximum {a : Type} {d : Ord a} (xs : List a) : Maybe a =
  match xs with
  | [] -> Nothing
  | Cons x rest -> Just (foldlStrict max x rest)

-- The list in ascending order (stable).
def sort {a : Type} {d : Ord a} (xs : List a) : List a =
  match xs with
  | Cons x (Cons _ _) -> if prim_isPrim x then prim_sortPrims xs sort'general else sort'general xs
  | _ -> xs

def sort'general {a : Type} {d : Ord a} (xs : List a) : List a =
  prim_seq (list'whnfAll xs) (sort'native xs)

-- The machine's answers: `Right` the sorted list; `Left (Just parts)` where comparing
-- needs parts of elements not evaluated yet (the parts that break ties: evaluated
-- here, the machine is asked again); `Left Nothing` where it cannot order them
-- (`sortBy` with `compare` then does).
def sort'native {a : Type} {d : Ord a} (xs : List a) : List a =
  match (prim_sortOrdered xs : Either (Maybe (List Unit)) (List a)) with
  | Right ys -> ys
  | Left (Just parts) -> prim_seq (list'whnfAll parts) (sort'native xs)
  | Left Nothing -> sortBy (\x y -> derive'le x y) xs

-- `xs` sorted by `f` of each element, ascending and stable (`f` is applied once per
-- element).
def sortOn {a : Type} {b : Type} {d : Ord b} (f : a -> b) (xs : List a) : List a =
  match xs with
  | Cons _ (Cons _ _) ->
    let keyed = map (\x -> let k = f x in prim_seq k (k, x)) xs in
    prim_seq (list'whnfAll keyed) (map snd (sort'onFirst keyed))
  | _ -> xs

def sort'onFirst {a : Type} {b : Type} {d : Ord b} (keyed : List (Pair b a)) : List (Pair b a) =
  match (prim_sortOnFirst keyed : Either (Maybe (List Unit)) (List (Pair b a))) with
  | Right ys -> ys
  | Left (Just parts) -> prim_seq (list'whnfAll parts) (sort'onFirst keyed)
  | Left Nothing -> sortBy (\p q -> derive'le (fst p) (fst q)) keyed

-- Numbers with an absolute value: `Int` and `Float`.
interface Signed (a : Type)

instance Signed Int

instance Signed Float

-- The absolute value (of the least `Int`, an overflow error).
def abs {a : Type} {d : Signed a} (x : a) : a = prim_abs x

-- Types whose values can go on with a function of what they hold, or stop:
-- `andThen (Just 1) f` is `f 1`, `andThen Nothing f` is `Nothing`, and likewise
-- `Right` goes on and `Left` stops.
interface AndThen (m : Type -> Type) where
  andThen : {a : Type} -> {b : Type} -> m a -> (a -> m b) -> m b

instance AndThen Maybe where
  andThen mx f = match mx with
    | Nothing -> Nothing
    | Just x -> f x

instance AndThen (Either e) where
  andThen ex f = match ex with
    | Left e -> Left e
    | Right x -> f x
