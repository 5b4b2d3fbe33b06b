-- BFS on a grid: a generated maze of open cells and walls; breadth-first search from
-- the top-left corner, one level (distance) at a time, with a set of the cells seen.

def size : Int = 500

def nextSeed (s : Int) : Int = (s * 1103515245 + 12345) % 2147483648

def grid : Array Bool =
  arraySet 0 True (arrayFromList (map (\s -> s / 1024 % 100 >= 28) (take (size * size) (drop 1 (iterate nextSeed 41)))))

def neighbours (cell : Int) : List Int =
  map (\xy -> snd xy * size + fst xy)
    (filter (\xy -> fst xy >= 0 && fst xy < size && snd xy >= 0 && snd xy < size)
      [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)])
  where
    x = cell % size
    y = cell / size

-- The cells of each distance from the start, nearest first.
def levels (open : Array Bool) (seen : Set Int) (frontier : List Int) : List (List Int) =
  match frontier with
  | [] -> []
  | _ ->
    match foldl visitAll (seen, []) frontier with
    | (seen2, next) -> frontier :: levels open seen2 next
  where
    visit acc n =
      match acc with
      | (s, out) -> if arrayAt n open && not (setMember n s) then (setInsert n s, n :: out) else acc
    visitAll acc cell = foldl visit acc (neighbours cell)

def main : String =
  join "\n"
    [ "open cells: " ++ showInt (length (filter id (arrayToList grid)))
    , "reachable: " ++ showInt (sum sizes)
    , "farthest: " ++ showInt (length sizes - 1)
    , "sum of distances: " ++ showInt (sum (zipWith (\d n -> d * n) (range 0 (length sizes)) sizes))
    , "corner: " ++ showInt corner
    , "by hundreds: " ++ join " " (map (\kv -> showInt (fst kv) ++ ":" ++ showInt (snd kv)) (mapToList byHundreds))
    ]
  where
    found = levels grid (setSingleton 0) [0]
    sizes = map length found
    corner = fromMaybe (-1) (head (map fst (filter (\dl -> elem (size * size - 1) (snd dl)) (zip (range 0 (length found)) found))))
    byHundreds = foldl (\m dn -> mapInsertWith (\new old -> new + old) (fst dn / 100) (snd dn) m) mapEmpty (zip (range 0 (length sizes)) sizes)
