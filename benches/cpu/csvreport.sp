-- CSV report: generate a table of sales with decimal prices, parse it, group by
-- (region, product) and by month in maps, and print an aligned report.

record Sale = { month : String, region : String, product : String, units : Int, price : Float }

def rows : Int = 120000

def regions : List String = ["north", "south", "east", "west"]

def products : List String = ["widget", "gadget", "doohickey", "gizmo", "sprocket"]

def nextSeed (s : Int) : Int = (s * 1103515245 + 12345) % 2147483648

def pick (xs : List String) (i : Int) : String = fromMaybe "" (nth (i % length xs) xs)

def twoDigits (n : Int) : String = if n < 10 then "0" ++ showInt n else showInt n

def csvLine (seed : Int) : String =
  join "," [date, pick regions (seed / 4096), pick products (seed / 32768), showInt (1 + seed / 262144 % 20), price]
  where
    date = "2024-" ++ twoDigits (1 + seed / 8 % 12) ++ "-" ++ twoDigits (1 + seed / 128 % 28)
    price = showInt (1 + seed / 16 % 60) ++ "." ++ twoDigits (seed / 1024 % 100)

def generate : String =
  unlines ("date,region,product,units,unit_price" :: map csvLine (take rows (drop 1 (iterate nextSeed 77))))

def parseSale (line : String) : Maybe Sale =
  match split "," line with
  | [date, region, product, units, price] ->
    Just { month = substring 0 7 date, region = region, product = product
         , units = fromMaybe 0 (parseInt units), price = fromMaybe 0.0 (parseFloat price) }
  | _ -> Nothing

def revenue (s : Sale) : Float = intToFloat s.units * s.price

def addUp (new : Pair Int (Pair Int Float)) (old : Pair Int (Pair Int Float)) : Pair Int (Pair Int Float) =
  match (old, new) with
  | ((c1, u1, t1), (c2, u2, t2)) -> (c1 + c2, u1 + u2, t1 + t2)

def groupLine (entry : Pair (Pair String String) (Pair Int (Pair Int Float))) : String =
  match entry with
  | ((region, product), (count, units, total)) ->
    padRight 8 region ++ padRight 11 product ++ padLeft 7 (showInt count) ++ padLeft 8 (showInt units)
      ++ padLeft 14 (showFixed 2 total) ++ padLeft 10 (showFixed 3 (total / intToFloat units))

def main : String =
  join "\n"
    ([ padRight 8 "region" ++ padRight 11 "product" ++ padLeft 7 "sales" ++ padLeft 8 "units"
         ++ padLeft 14 "revenue" ++ padLeft 10 "per unit" ]
      ++ map groupLine (mapToList groups)
      ++ map (\mt -> fst mt ++ padLeft 16 (showFixed 2 (snd mt))) (mapToList months)
      ++ [ "best month: " ++ fst best ++ " (" ++ showFixed 2 (snd best) ++ ")" ])
  where
    sales = concatMap (\l -> maybe [] (\s -> [s]) (parseSale l)) (drop 1 (lines generate))
    groups = foldl (\m s -> mapInsertWith addUp (s.region, s.product) (1, s.units, revenue s) m) mapEmpty sales
    months = foldl (\m s -> mapInsertWith (\new old -> old + new) s.month (revenue s) m) mapEmpty sales
    best = foldl (\b mt -> if snd mt > snd b then mt else b) ("none", -1.0) (mapToList months)
