-- Lists.

def map {a : Type} {b : Type} (f : a -> b) (xs : List a) : List b =
  match xs with
  | [] -> []
  | Cons x rest -> Cons (f x) (map f rest)

-- The rest is named before the test, so that while one element's test waits (a
-- slow service), the scheduler can already work on the next ones.
def filter {a : Type} (p : a -> Bool) (xs : List a) : List a =
  match xs with
  | [] -> []
  | Cons x rest -> let more = filter p rest in if p x then Cons x more else more

def foldr {a : Type} {b : Type} (f : a -> b -> b) (z : b) (xs : List a) : b =
  match xs with
  | [] -> z
  | Cons x rest -> f x (foldr f z rest)

def foldl {a : Type} {b : Type} (f : b -> a -> b) (z : b) (xs : List a) : b =
  match xs with
  | [] -> z
  | Cons x rest -> foldl f (f z x) rest

-- A left fold that needs its accumulator at each step, so that a long list is folded
-- in constant memory (`prim_seq a b` needs `a`, then is `b`).
def foldlStrict {a : Type} {b : Type} (f : b -> a -> b) (z : b) (xs : List a) : b =
  match xs with
  | [] -> z
  | Cons x rest -> let z2 = f z x in prim_seq z2 (foldlStrict f z2 rest)

-- `foldlRange f z lo hi` is `foldlStrict f z (range lo hi)` without building the list.
-- The machine runs `foldlStrict`, `sum`, `length` and `product` over pipelines of
-- `range`, `map` and `filter` as this loop when their functions call no external.
def foldlRange {b : Type} (f : b -> Int -> b) (z : b) (lo : Int) (hi : Int) : b =
  if lo >= hi then z else let z2 = f z lo in prim_seq z2 (foldlRange f z2 (lo + 1) hi)

-- `filterRange p lo hi` is `filter p (range lo hi)`, and `mapFilterRange f p lo hi` is
-- `map f (filter p (range lo hi))`, without the range's own list: the machine runs
-- such pipelines (and `map f (range lo hi)`) as these when their functions call no
-- external.
def filterRange (p : Int -> Bool) (lo : Int) (hi : Int) : List Int =
  if lo >= hi then [] else if p lo then Cons lo (filterRange p (lo + 1) hi) else filterRange p (lo + 1) hi

def mapFilterRange {b : Type} (f : Int -> b) (p : Int -> Bool) (lo : Int) (hi : Int) : List b =
  if lo >= hi then []
  else if p lo then Cons (f lo) (mapFilterRange f p (lo + 1) hi)
  else mapFilterRange f p (lo + 1) hi

def length {a : Type} (xs : List a) : Int = foldlStrict (\n _ -> n + 1) 0 xs

def sum (xs : List Int) : Int = foldlStrict (\acc x -> acc + x) 0 xs

def product (xs : List Int) : Int = foldlStrict (\acc x -> acc * x) 1 xs

def reverse {a : Type} (xs : List a) : List a = foldl (\acc x -> Cons x acc) [] xs

def append {a : Type} (xs : List a) (ys : List a) : List a =
  match xs with
  | [] -> ys
  | Cons x rest -> Cons x (append rest ys)

def concat {a : Type} (xss : List (List a)) : List a = foldr append [] xss

-- Written as its own recursion, not as a `foldr` with a lambda: the lambda's closure
-- would keep this call's record, and so the head of `xs`, alive while the result is
-- walked (the whole input list at once).
def concatMap {a : Type} {b : Type} (f : a -> List b) (xs : List a) : List b =
  match xs with
  | [] -> []
  | Cons x rest -> append (f x) (concatMap f rest)

def take {a : Type} (n : Int) (xs : List a) : List a =
  if n <= 0 then []
  else
    match xs with
    | [] -> []
    | Cons x rest -> Cons x (take (n - 1) rest)

def drop {a : Type} (n : Int) (xs : List a) : List a =
  if n <= 0 then xs
  else
    match xs with
    | [] -> []
    | Cons _ rest -> drop (n - 1) rest

def takeWhile {a : Type} (p : a -> Bool) (xs : List a) : List a =
  match xs with
  | [] -> []
  | Cons x rest -> let more = takeWhile p rest in if p x then Cons x more else []

def dropWhile {a : Type} (p : a -> Bool) (xs : List a) : List a =
  match xs with
  | [] -> []
  | Cons x rest -> let more = dropWhile p rest in if p x then more else xs

def zipWith {a : Type} {b : Type} {c : Type} (f : a -> b -> c) (xs : List a) (ys : List b) : List c =
  match (xs, ys) with
  | (Cons x xr, Cons y yr) -> Cons (f x y) (zipWith f xr yr)
  | _ -> []

def zip {a : Type} {b : Type} (xs : List a) (ys : List b) : List (Pair a b) =
  zipWith (\x y -> (x, y)) xs ys

def unzip {a : Type} {b : Type} (ps : List (Pair a b)) : Pair (List a) (List b) =
  foldr (\p acc -> (Cons (fst p) (fst acc), Cons (snd p) (snd acc))) ([], []) ps

-- `range a b` is [a, a + 1, ..., b - 1].
def range (a : Int) (b : Int) : List Int = if a >= b then [] else Cons a (range (a + 1) b)

def replicate {a : Type} (n : Int) (x : a) : List a = if n <= 0 then [] else Cons x (replicate (n - 1) x)

def iterate {a : Type} (f : a -> a) (x : a) : List a = Cons x (iterate f (f x))

def repeat {a : Type} (x : a) : List a = let xs = Cons x xs in xs

def any {a : Type} (p : a -> Bool) (xs : List a) : Bool =
  match xs with
  | [] -> False
  | Cons x rest -> let more = any p rest in p x || more

def all {a : Type} (p : a -> Bool) (xs : List a) : Bool =
  match xs with
  | [] -> True
  | Cons x rest -> let more = all p rest in p x && more

def elem {a : Type} (y : a) (xs : List a) : Bool = any (\x -> x == y) xs

def lookup {a : Type} {b : Type} (key : a) (ps : List (Pair a b)) : Maybe b =
  match ps with
  | [] -> Nothing
  | Cons (k, v) rest -> if k == key then Just v else lookup key rest

-- Counting from 0.
def nth {a : Type} (n : Int) (xs : List a) : Maybe a =
  match xs with
  | [] -> Nothing
  | Cons x rest -> if n == 0 then Just x else if n < 0 then Nothing else nth (n - 1) rest

def head {a : Type} (xs : List a) : Maybe a =
  match xs with
  | [] -> Nothing
  | Cons x _ -> Just x

def last {a : Type} (xs : List a) : Maybe a =
  match xs with
  | [] -> Nothing
  | [x] -> Just x
  | Cons _ rest -> last rest

-- Stable merge sort; `le` is "less or equal".
def sortBy {a : Type} (le : a -> a -> Bool) (xs : List a) : List a =
  let n = length xs in
  if n <= 1 then xs
  else mergeBy le (sortBy le (take (n / 2) xs)) (sortBy le (drop (n / 2) xs))

-- The merge of two lists sorted by `le` (stable: `l`'s elements first among equals).
-- It needs both lists whatever they are, and says so (`prim_seq`): a parallel run
-- then sorts the two halves at once.
def mergeBy {a : Type} (le : a -> a -> Bool) (l : List a) (r : List a) : List a =
  prim_seq l (prim_seq r (mergeSorted le l r))

def mergeSorted {a : Type} (le : a -> a -> Bool) (l : List a) (r : List a) : List a =
  match (l, r) with
  | ([], _) -> r
  | (_, []) -> l
  | (Cons x xr, Cons y yr) -> if le x y then Cons x (mergeSorted le xr r) else Cons y (mergeSorted le l yr)

-- `scanl f z [x1, x2, ...]` is `[z, f z x1, f (f z x1) x2, ...]`.
def scanl {a : Type} {b : Type} (f : b -> a -> b) (z : b) (xs : List a) : List b =
  Cons z (match xs with
    | [] -> []
    | Cons x rest -> scanl f (f z x) rest)

-- The runs of neighbours that `eq` relates to the first of their run.
def groupBy {a : Type} (eq : a -> a -> Bool) (xs : List a) : List (List a) =
  match xs with
  | [] -> []
  | Cons x rest ->
    let run = span (\y -> eq x y) rest in
    Cons (Cons x (fst run)) (groupBy eq (snd run))

-- The runs of equal neighbours.
def group {a : Type} (xs : List a) : List (List a) = groupBy (\x y -> x == y) xs

-- The longest prefix whose elements satisfy `p`, and the rest.
def span {a : Type} (p : a -> Bool) (xs : List a) : Pair (List a) (List a) =
  match xs with
  | [] -> ([], [])
  | Cons x rest ->
    if p x then (let more = span p rest in (Cons x (fst more), snd more)) else ([], xs)

-- The elements that satisfy `p`, and those that do not.
def partition {a : Type} (p : a -> Bool) (xs : List a) : Pair (List a) (List a) =
  (filter p xs, filter (\x -> not (p x)) xs)

-- `(take n xs, drop n xs)`.
def splitAt {a : Type} (n : Int) (xs : List a) : Pair (List a) (List a) = (take n xs, drop n xs)

-- The list cut into pieces of `n` elements (the last may be shorter); `n` below 1
-- is taken as 1.
def chunksOf {a : Type} (n : Int) (xs : List a) : List (List a) =
  match xs with
  | [] -> []
  | _ -> let k = if n < 1 then 1 else n in Cons (take k xs) (chunksOf k (drop k xs))

-- The list repeated forever (the empty list stays empty).
def cycle {a : Type} (xs : List a) : List a =
  match xs with
  | [] -> []
  | _ -> let ys = append xs ys in ys

-- The sum of a list of `Float`s.
def sumFloat (xs : List Float) : Float = foldlStrict (\acc x -> acc + x) 0.0 xs
