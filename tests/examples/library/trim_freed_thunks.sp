-- Long-lived thunks are trimmed (they keep only what they use) while the heap grows;
-- trimming one may free others. A freed thunk must not be trimmed again: with calls
-- computed at hand off, that released records still in use (found by
-- tests/tier_subsets.sh; the model's thunks read another record's slots).

data Rev = MkRev Int

instance Ord Rev where
  compare a b = match (a, b) with
    | (MkRev x, MkRev y) -> compare y x

def lcg (s : Int) : Int = (s * 1103515245 + 12345) % 2147483648

def modelInsert {k : Type} {v : Type} (le : k -> k -> Bool) (key : k) (x : v) (ps : List (Pair k v)) : List (Pair k v) =
  match ps with
  | [] -> [(key, x)]
  | Cons (k2, x2) rest ->
    if le key k2 && le k2 key then Cons (key, x) rest
    else if le key k2 then Cons (key, x) ps
    else Cons (k2, x2) (modelInsert le key x rest)

def modelDelete {k : Type} {v : Type} (le : k -> k -> Bool) (key : k) (ps : List (Pair k v)) : List (Pair k v) =
  filter (\p -> not (le key (fst p) && le (fst p) key)) ps

def balanced {k : Type} {v : Type} (m : Map k v) : Bool =
  match m with
  | Map'Tip -> True
  | Map'Bin s _ _ l r ->
    let sl = mapSize l in
    let sr = mapSize r in
    s == sl + sr + 1 && (sl + sr <= 1 || (sl <= 3 * sr && sr <= 3 * sl)) && balanced l && balanced r

def run {k : Type} {d : Ord k} (mk : Int -> k) (n : Int) : Pair Bool Int =
  let le = \a b -> compare a b != GT in
  let step = \st i ->
    match st with
    | (seed, m, model) ->
      let s2 = lcg seed in
      let key = mk (s2 % 97) in
      if s2 % 3 == 0 then (s2, mapDelete key m, modelDelete le key model)
      else (s2, mapInsert key i m, modelInsert le key i model) in
  match foldl step (7, mapEmpty, []) (range 0 n) with
  | (_, m, model) -> (mapSize m == length model, mapSize m)


def main = run (\i -> MkRev i) 3000
