-- Ordered maps and sets, and arrays (docs/stdlib.md).
--
-- A `Map k v` is a weight-balanced binary search tree ordered by `Ord k` (the sizes of
-- two siblings differ by at most a factor of three), persistent: an update builds a
-- new path and shares the rest. Keys and values are kept evaluated (to weak head
-- normal form), so a map counted into in a loop holds numbers, not chains of
-- additions. Where keys are numbers, strings or characters, or data built from them
-- whose `Ord` is derived, the machine walks and rebuilds the tree itself
-- (`prim_map...`); otherwise, and whenever it cannot, the definitions here do.
-- Either way the trees are the same.
--
-- The constructors are internal: a map is built and read through the functions.
-- `spindle run` prints a map as `mapFromList [(k, v), ...]`, a set as
-- `setFromList [...]` and an array as `arrayFromList [...]`, and `==` compares their
-- contents, not their shapes.

data Map (k : Type) (v : Type) = Map'Tip | Map'Bin Int k v (Map k v) (Map k v)

-- A set is a map to `()`.
data Set (k : Type) = Set'Of (Map k Unit)

-- An array is a map from positions `0 .. n - 1`.
data Array (a : Type) = Array'Of (Map Int a)

-- ----- the tree -------------------------------------------------------------------

def map'size {k : Type} {v : Type} (m : Map k v) : Int =
  match m with
  | Map'Tip -> 0
  | Map'Bin s _ _ _ _ -> s

def map'node {k : Type} {v : Type} (key : k) (x : v) (l : Map k v) (r : Map k v) : Map k v =
  Map'Bin (map'size l + map'size r + 1) key x l r

-- A node whose subtrees were balanced before one insertion or deletion.
def map'balance {k : Type} {v : Type} (key : k) (x : v) (l : Map k v) (r : Map k v) : Map k v =
  let sl = map'size l in
  let sr = map'size r in
  if sl + sr <= 1 then Map'Bin (sl + sr + 1) key x l r
  else if sr > 3 * sl then map'rotateL key x l r
  else if sl > 3 * sr then map'rotateR key x l r
  else Map'Bin (sl + sr + 1) key x l r

def map'rotateL {k : Type} {v : Type} (key : k) (x : v) (l : Map k v) (r : Map k v) : Map k v =
  match r with
  | Map'Bin _ k2 x2 rl rr ->
    if map'size rl < 2 * map'size rr then map'node k2 x2 (map'node key x l rl) rr
    else (match rl with
      | Map'Bin _ k3 x3 rll rlr -> map'node k3 x3 (map'node key x l rll) (map'node k2 x2 rlr rr)
      | Map'Tip -> map'node key x l r)
  | Map'Tip -> map'node key x l r

def map'rotateR {k : Type} {v : Type} (key : k) (x : v) (l : Map k v) (r : Map k v) : Map k v =
  match l with
  | Map'Bin _ k2 x2 ll lr ->
    if map'size lr < 2 * map'size ll then map'node k2 x2 ll (map'node key x lr r)
    else (match lr with
      | Map'Bin _ k3 x3 lrl lrr -> map'node k3 x3 (map'node k2 x2 ll lrl) (map'node key x lrr r)
      | Map'Tip -> map'node key x l r)
  | Map'Tip -> map'node key x l r

def map'insert {k : Type} {v : Type} {d : Ord k} (key : k) (x : v) (m : Map k v) : Map k v =
  match m with
  | Map'Tip -> Map'Bin 1 key x Map'Tip Map'Tip
  | Map'Bin s k2 x2 l r ->
    (match compare key k2 with
      | LT -> map'balance k2 x2 (map'insert key x l) r
      | GT -> map'balance k2 x2 l (map'insert key x r)
      | EQ -> Map'Bin s key x l r)

def map'lookup {k : Type} {v : Type} {d : Ord k} (key : k) (m : Map k v) : Maybe v =
  match m with
  | Map'Tip -> Nothing
  | Map'Bin _ k2 x2 l r ->
    (match compare key k2 with
      | LT -> map'lookup key l
      | GT -> map'lookup key r
      | EQ -> Just x2)

-- The least entry and the rest of the tree.
def map'minView {k : Type} {v : Type} (key : k) (x : v) (l : Map k v) (r : Map k v) : Pair (Pair k v) (Map k v) =
  match l with
  | Map'Tip -> ((key, x), r)
  | Map'Bin _ lk lx ll lr ->
    (match map'minView lk lx ll lr with
      | (least, rest) -> (least, map'balance key x rest r))

-- The greatest entry and the rest of the tree.
def map'maxView {k : Type} {v : Type} (key : k) (x : v) (l : Map k v) (r : Map k v) : Pair (Pair k v) (Map k v) =
  match r with
  | Map'Tip -> ((key, x), l)
  | Map'Bin _ rk rx rl rr ->
    (match map'maxView rk rx rl rr with
      | (greatest, rest) -> (greatest, map'balance key x l rest))

-- Two trees, every key of `l` below every key of `r`, whose sizes were balanced.
def map'glue {k : Type} {v : Type} (l : Map k v) (r : Map k v) : Map k v =
  match l with
  | Map'Tip -> r
  | Map'Bin sl lk lx ll lr ->
    (match r with
      | Map'Tip -> l
      | Map'Bin sr rk rx rl rr ->
        if sl > sr then (match map'maxView lk lx ll lr with
          | ((km, xm), rest) -> map'balance km xm rest r)
        else (match map'minView rk rx rl rr with
          | ((km, xm), rest) -> map'balance km xm l rest))

def map'delete {k : Type} {v : Type} {d : Ord k} (key : k) (m : Map k v) : Map k v =
  match m with
  | Map'Tip -> Map'Tip
  | Map'Bin _ k2 x2 l r ->
    (match compare key k2 with
      | LT -> map'balance k2 x2 (map'delete key l) r
      | GT -> map'balance k2 x2 l (map'delete key r)
      | EQ -> map'glue l r)

-- A balanced tree of the first `n` entries of a list sorted by key without
-- duplicates, and the entries after them.
def map'build {k : Type} {v : Type} (n : Int) (xs : List (Pair k v)) : Pair (Map k v) (List (Pair k v)) =
  if n <= 0 then (Map'Tip, xs)
  else
    let nl = (n - 1) / 2 in
    match map'build nl xs with
    | (l, rest) ->
      (match rest with
        | Cons (key, x) rest2 ->
          (match map'build (n - 1 - nl) rest2 with
            | (r, rest3) -> prim_seq l (prim_seq r (prim_seq x (Map'Bin n key x l r, rest3))))
        | [] -> (l, []))

-- The entries of a list sorted by key, a later one replacing an earlier one with the
-- same key.
def map'lastOfRuns {k : Type} {v : Type} {d : Ord k} (xs : List (Pair k v)) : List (Pair k v) =
  match xs with
  | Cons (a, x) (Cons (b, y) rest) ->
    (if compare a b == EQ then map'lastOfRuns (Cons (b, y) rest)
    else Cons (a, x) (map'lastOfRuns (Cons (b, y) rest)))
  | _ -> xs

def map'fromSorted {k : Type} {v : Type} (xs : List (Pair k v)) : Map k v =
  fst (map'build (length xs) xs)

-- ----- maps -----------------------------------------------------------------------

def mapEmpty {k : Type} {v : Type} : Map k v = Map'Tip

def mapSingleton {k : Type} {v : Type} (key : k) (x : v) : Map k v =
  prim_seq key (prim_seq x (Map'Bin 1 key x Map'Tip Map'Tip))

-- The number of entries.
def mapSize {k : Type} {v : Type} (m : Map k v) : Int = map'size m

def mapNull {k : Type} {v : Type} (m : Map k v) : Bool = map'size m == 0

-- `m` with `key` mapped to `x` (replacing what `key` mapped to).
def mapInsert {k : Type} {v : Type} {d : Ord k} (key : k) (x : v) (m : Map k v) : Map k v =
  prim_seq x (map'insertWith key x m)

-- The machine's answers: `Right` what it computed; `Left (Just part)` where a key's
-- part is not evaluated yet (evaluated here, the machine is asked again: the
-- prelude's search would evaluate the same part); `Left Nothing` where the machine
-- cannot compare the keys (the prelude's definition then does it).
def map'insertWith {k : Type} {v : Type} {d : Ord k} (key : k) (x : v) (m : Map k v) : Map k v =
  match (prim_mapInsert key x m : Either (Maybe Unit) (Map k v)) with
  | Right m2 -> m2
  | Left (Just part) -> prim_seq part (map'insertWith key x m)
  | Left Nothing -> map'insert key x m

def mapLookup {k : Type} {v : Type} {d : Ord k} (key : k) (m : Map k v) : Maybe v =
  match (prim_mapLookup key m : Either (Maybe Unit) (Maybe v)) with
  | Right found -> found
  | Left (Just part) -> prim_seq part (mapLookup key m)
  | Left Nothing -> map'lookup key m

def mapMember {k : Type} {v : Type} {d : Ord k} (key : k) (m : Map k v) : Bool =
  match mapLookup key m with
  | Nothing -> False
  | Just _ -> True

def mapFindWithDefault {k : Type} {v : Type} {d : Ord k} (def_ : v) (key : k) (m : Map k v) : v =
  match mapLookup key m with
  | Nothing -> def_
  | Just x -> x

-- `mapInsertWith f key x m`: `x`, or `f x old` where `key` maps to `old`.
def mapInsertWith {k : Type} {v : Type} {d : Ord k} (f : v -> v -> v) (key : k) (x : v) (m : Map k v) : Map k v =
  match mapLookup key m with
  | Nothing -> mapInsert key x m
  | Just old -> mapInsert key (f x old) m

-- `m` with `f` applied to what `key` maps to (unchanged where `key` is absent).
def mapAdjust {k : Type} {v : Type} {d : Ord k} (f : v -> v) (key : k) (m : Map k v) : Map k v =
  match mapLookup key m with
  | Nothing -> m
  | Just old -> mapInsert key (f old) m

-- `m` without `key`.
def mapDelete {k : Type} {v : Type} {d : Ord k} (key : k) (m : Map k v) : Map k v =
  match (prim_mapDelete key m : Either (Maybe Unit) (Map k v)) with
  | Right m2 -> m2
  | Left (Just part) -> prim_seq part (mapDelete key m)
  | Left Nothing -> map'delete key m

-- The map of a list of entries; where a key comes twice, the later entry wins.
def mapFromList {k : Type} {v : Type} {d : Ord k} (xs : List (Pair k v)) : Map k v =
  map'fromSorted (map'lastOfRuns (sortOn fst xs))

-- The map of a list of entries; where a key comes twice, `f later earlier`.
def mapFromListWith {k : Type} {v : Type} {d : Ord k} (f : v -> v -> v) (xs : List (Pair k v)) : Map k v =
  foldlStrict (\m p -> mapInsertWith f (fst p) (snd p) m) mapEmpty xs

-- `f k1 v1 (f k2 v2 (... z))` over the entries in ascending order of keys (lazy: the
-- entries are visited as the result is needed).
def mapFoldrWithKey {k : Type} {v : Type} {b : Type} (f : k -> v -> b -> b) (z : b) (m : Map k v) : b =
  match m with
  | Map'Tip -> z
  | Map'Bin _ key x l r -> mapFoldrWithKey f (f key x (mapFoldrWithKey f z r)) l

-- `f (... (f z k1 v1) ...) kn vn` in ascending order of keys, the accumulator
-- evaluated at each entry (constant memory beside the map).
def mapFoldlWithKey {k : Type} {v : Type} {b : Type} (f : b -> k -> v -> b) (z : b) (m : Map k v) : b =
  match m with
  | Map'Tip -> z
  | Map'Bin _ key x l r ->
    let z1 = mapFoldlWithKey f z l in
    let z2 = f z1 key x in
    prim_seq z1 (prim_seq z2 (mapFoldlWithKey f z2 r))

-- The entries in ascending order of keys.
def mapToList {k : Type} {v : Type} (m : Map k v) : List (Pair k v) =
  mapFoldrWithKey (\key x rest -> Cons (key, x) rest) [] m

def mapKeys {k : Type} {v : Type} (m : Map k v) : List k =
  mapFoldrWithKey (\key x rest -> Cons key rest) [] m

def mapElems {k : Type} {v : Type} (m : Map k v) : List v =
  mapFoldrWithKey (\key x rest -> Cons x rest) [] m

-- `f` applied to every value.
def mapMap {k : Type} {v : Type} {w : Type} (f : v -> w) (m : Map k v) : Map k w =
  match m with
  | Map'Tip -> Map'Tip
  | Map'Bin s key x l r ->
    let y = f x in
    let l2 = mapMap f l in
    let r2 = mapMap f r in
    prim_seq y (prim_seq l2 (prim_seq r2 (Map'Bin s key y l2 r2)))

-- The entries whose value satisfies `p`.
def mapFilter {k : Type} {v : Type} (p : v -> Bool) (m : Map k v) : Map k v =
  map'fromSorted (filter (\e -> p (snd e)) (mapToList m))

-- The entries whose key and value satisfy `p`.
def mapFilterWithKey {k : Type} {v : Type} (p : k -> v -> Bool) (m : Map k v) : Map k v =
  map'fromSorted (filter (\e -> p (fst e) (snd e)) (mapToList m))

-- The entries of both; where a key is in both, `f` of its value in `a` and in `b`.
def mapUnionWith {k : Type} {v : Type} {d : Ord k} (f : v -> v -> v) (a : Map k v) (b : Map k v) : Map k v =
  mapFoldlWithKey (\acc key y -> mapInsertWith (\new old -> f old new) key y acc) a b

-- The entries of both; where a key is in both, its value in `a`.
def mapUnion {k : Type} {v : Type} {d : Ord k} (a : Map k v) (b : Map k v) : Map k v =
  mapUnionWith (\x y -> x) a b

def mapLookupMin {k : Type} {v : Type} (m : Map k v) : Maybe (Pair k v) =
  match m with
  | Map'Tip -> Nothing
  | Map'Bin _ key x l r -> Just (fst (map'minView key x l r))

def mapLookupMax {k : Type} {v : Type} (m : Map k v) : Maybe (Pair k v) =
  match m with
  | Map'Tip -> Nothing
  | Map'Bin _ key x l r -> Just (fst (map'maxView key x l r))

-- ----- sets -----------------------------------------------------------------------

-- A set of the keys of an evaluated map (the tree is kept evaluated inside sets and
-- arrays, so that printing and `==` see it).
def set'of {k : Type} (m : Map k Unit) : Set k = prim_seq m (Set'Of m)

def setEmpty {k : Type} : Set k = Set'Of Map'Tip

def setSingleton {k : Type} (key : k) : Set k = set'of (mapSingleton key ())

def setSize {k : Type} (s : Set k) : Int =
  match s with
  | Set'Of m -> map'size m

def setNull {k : Type} (s : Set k) : Bool = setSize s == 0

def setInsert {k : Type} {d : Ord k} (key : k) (s : Set k) : Set k =
  match s with
  | Set'Of m -> set'of (mapInsert key () m)

def setDelete {k : Type} {d : Ord k} (key : k) (s : Set k) : Set k =
  match s with
  | Set'Of m -> set'of (mapDelete key m)

def setMember {k : Type} {d : Ord k} (key : k) (s : Set k) : Bool =
  match s with
  | Set'Of m -> mapMember key m

def setFromList {k : Type} {d : Ord k} (xs : List k) : Set k =
  set'of (mapFromList (map (\x -> (x, ())) xs))

-- The elements in ascending order.
def setToList {k : Type} (s : Set k) : List k =
  match s with
  | Set'Of m -> mapKeys m

def setUnion {k : Type} {d : Ord k} (a : Set k) (b : Set k) : Set k =
  match (a, b) with
  | (Set'Of x, Set'Of y) -> set'of (mapUnion x y)

def setIntersection {k : Type} {d : Ord k} (a : Set k) (b : Set k) : Set k =
  match a with
  | Set'Of x -> set'of (mapFilterWithKey (\key u -> setMember key b) x)

def setDifference {k : Type} {d : Ord k} (a : Set k) (b : Set k) : Set k =
  match a with
  | Set'Of x -> set'of (mapFilterWithKey (\key u -> not (setMember key b)) x)

-- ----- arrays ---------------------------------------------------------------------

def array'of {a : Type} (m : Map Int a) : Array a = prim_seq m (Array'Of m)

def arrayEmpty {a : Type} : Array a = Array'Of Map'Tip

def arrayFromList {a : Type} (xs : List a) : Array a =
  array'of (map'fromSorted (zipWith (\i x -> prim_seq x (i, x)) (range 0 (length xs)) xs))

-- `n` copies of `x`.
def arrayMake {a : Type} (n : Int) (x : a) : Array a = arrayFromList (replicate n x)

def arrayLength {a : Type} (arr : Array a) : Int =
  match arr with
  | Array'Of m -> map'size m

-- The element at position `i` (counting from 0), if there is one.
def arrayGet {a : Type} (i : Int) (arr : Array a) : Maybe a =
  match arr with
  | Array'Of m -> mapLookup i m

-- The element at position `i`; a position outside the array is an error.
def arrayAt {a : Type} (i : Int) (arr : Array a) : a =
  match arrayGet i arr with
  | Just x -> x
  | Nothing -> error ("array index " ++ showInt i ++ " out of range (length " ++ showInt (arrayLength arr) ++ ")")

-- The array with position `i` holding `x`; a position outside the array is an error.
def arraySet {a : Type} (i : Int) (x : a) (arr : Array a) : Array a =
  match arr with
  | Array'Of m ->
    if i < 0 || i >= map'size m then error ("array index " ++ showInt i ++ " out of range (length " ++ showInt (map'size m) ++ ")")
    else array'of (mapInsert i x m)

-- The array with `x` after its last element.
def arrayPush {a : Type} (x : a) (arr : Array a) : Array a =
  match arr with
  | Array'Of m -> array'of (mapInsert (map'size m) x m)

def arrayToList {a : Type} (arr : Array a) : List a =
  match arr with
  | Array'Of m -> mapElems m

-- ----- instances ------------------------------------------------------------------

instance (Show k, Show v) => Show (Map k v) where
  show m = "mapFromList " ++ show (mapToList m)

instance Show k => Show (Set k) where
  show s = "setFromList " ++ show (setToList s)

instance Show a => Show (Array a) where
  show arr = "arrayFromList " ++ show (arrayToList arr)

-- `==` compares maps by their entries (the machine knows maps).
instance (Eq k, Eq v) => Eq (Map k v)

instance Eq k => Eq (Set k)

instance Eq a => Eq (Array a)

-- Maps, sets and arrays compare as the lists of their entries.
instance (Ord k, Ord v) => Ord (Map k v) where
  compare a b = compare (mapToList a) (mapToList b)

instance Ord k => Ord (Set k) where
  compare a b = compare (setToList a) (setToList b)

instance Ord a => Ord (Array a) where
  compare a b = compare (arrayToList a) (arrayToList b)

-- A map whose keys are strings is an object; any other is an array of `[key, value]`.
instance (ToJson k, ToJson v) => ToJson (Map k v) where
  toJson m =
    let entries = map (\p -> (toJson (fst p), toJson (snd p))) (mapToList m) in
    if all (\e -> map'isJStr (fst e)) entries
    then JObj (map (\e -> (map'jstr (fst e), snd e)) entries)
    else JArr (map (\e -> JArr [fst e, snd e]) entries)

instance ToJson k => ToJson (Set k) where
  toJson s = toJson (setToList s)

instance ToJson a => ToJson (Array a) where
  toJson arr = toJson (arrayToList arr)

-- An object (string keys) or an array of `[key, value]` pairs.
instance (Ord k, FromJson k, FromJson v) => FromJson (Map k v) where
  fromJson j =
    let pairs = match j with
      | JObj kvs -> JArr (map (\e -> JArr [JStr (fst e), snd e]) kvs)
      | _ -> j in
    match fromJson pairs with
    | Left e -> Left e
    | Right ps -> Right (mapFromList ps)

instance (Ord k, FromJson k) => FromJson (Set k) where
  fromJson j = match fromJson j with
    | Left e -> Left e
    | Right xs -> Right (setFromList xs)

instance FromJson a => FromJson (Array a) where
  fromJson j = match fromJson j with
    | Left e -> Left e
    | Right xs -> Right (arrayFromList xs)

def map'isJStr (j : Json) : Bool =
  match j with
  | JStr _ -> True
  | _ -> False

def map'jstr (j : Json) : String =
  match j with
  | JStr s -> s
  | _ -> ""
