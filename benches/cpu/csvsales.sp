-- CSV: generate a sales table as text, parse it back, and aggregate by region and by
-- product.

record Sale = { id : Int, region : String, product : String, quantity : Int, price : Int }

def rows : Int = 150000

def regions : List String = ["north", "south", "east", "west", "central"]

def products : List String = ["apples", "pears", "plums", "cherries", "grapes", "melons", "kiwis"]

def nextSeed (s : Int) : Int = (s * 1103515245 + 12345) % 2147483648

def pick (xs : List String) (i : Int) : String = fromMaybe "" (nth (i % length xs) xs)

def csvLine (i : Int) (seed : Int) : String =
  join "," [showInt i, pick regions (seed / 16), pick products (seed / 256), showInt (1 + seed / 4096 % 40), showInt (50 + seed / 65536 % 950)]

def generate : String =
  unlines ("id,region,product,quantity,price_cents" :: zipWith csvLine (range 0 rows) seeds)
  where
    seeds = drop 1 (iterate nextSeed 2024)

def toInt (s : String) : Int = fromMaybe 0 (parseInt s)

def parseSale (line : String) : Maybe Sale =
  match split "," line with
  | [i, r, p, q, c] -> Just { id = toInt i, region = r, product = p, quantity = toInt q, price = toInt c }
  | _ -> Nothing

def revenue (s : Sale) : Int = s.quantity * s.price

def regionLine (sales : List Sale) (r : String) : String =
  r ++ ": " ++ showInt (length mine) ++ " sales, " ++ showInt units ++ " units, "
    ++ showInt total ++ " cents, best sale " ++ showInt (snd best) ++ " (" ++ showInt (fst best) ++ ")"
  where
    mine = filter (\s -> s.region == r) sales
    units = sum (map (\s -> s.quantity) mine)
    total = sum (map revenue mine)
    best = foldl (\b s -> if revenue s > fst b then (revenue s, s.id) else b) (-1, 0) mine

def main : String =
  join "\n" (map (regionLine sales) regions ++ productLines ++ [bigLine])
  where
    sales = concatMap (\l -> maybe [] (\s -> [s]) (parseSale l)) (drop 1 (lines generate))
    productTotal p = sum (map revenue (filter (\s -> s.product == p) sales))
    ranked = sortBy (\a b -> snd a >= snd b) (map (\p -> (p, productTotal p)) products)
    productLines = map (\pt -> fst pt ++ ": " ++ showInt (snd pt)) ranked
    big = filter (\s -> s.quantity >= 35 && s.price >= 900) sales
    bigLine = "big sales: " ++ showInt (length big) ++ ", first " ++ show (map (\s -> s.id) (take 5 big))
