-- JSON: build a list of user records, render it as JSON text, parse the text back,
-- decode it and aggregate.

record Location = { x : Int, y : Int } deriving (Show, ToJson, FromJson)

record User = { id : Int, name : String, score : Int, active : Bool, tags : List String, location : Location } deriving (Show, ToJson, FromJson)

def userCount : Int = 40000

def tagNames : List String = ["admin", "dev", "ops", "sales", "support", "research"]

def nextSeed (s : Int) : Int = (s * 1103515245 + 12345) % 2147483648

def power (b : Int) (e : Int) : Int = if e == 0 then 1 else b * power b (e - 1)

def makeUser (i : Int) (seed : Int) : User =
  { id = i
  , name = "user" ++ showInt i
  , score = seed / 128 % 1000
  , active = seed / 32 % 3 != 0
  , tags = map (\k -> fromMaybe "" (nth (seed / power 7 k % 6) tagNames)) (range 0 (seed / 1024 % 4))
  , location = { x = seed / 8 % 500, y = seed / 2048 % 500 }
  }

def generate : List User = zipWith makeUser (range 0 userCount) (drop 1 (iterate nextSeed 7))

def decode (text : String) : List User =
  match parseJson text with
  | Left e -> error e
  | Right j -> (match fromJson j with
    | Left e -> error e
    | Right users -> users)

def tagCount (users : List User) (t : String) : String =
  t ++ " " ++ showInt (length (filter (\tag -> tag == t) (concatMap (\u -> u.tags) users)))

def main : String =
  join "\n"
    [ "characters: " ++ showInt (strLength text)
    , "active: " ++ showInt (length active) ++ ", score " ++ showInt (sum (map (\u -> u.score) active))
    , "tags: " ++ join ", " (map (tagCount users) tagNames)
    , "far: " ++ show (take 4 far)
    , renderJson summary
    , renderJson (toJson (fromMaybe (makeUser 0 0) (nth 1 users)))
    ]
  where
    text = renderJson (toJson generate)
    users = decode text
    active = filter (\u -> u.active) users
    far = map (\u -> u.name) (filter (\u -> u.location.x + u.location.y > 980) users)
    top = fromMaybe 0 (maximum (map (\u -> u.score) users))
    summary = JObj [("users", toJson (length users)), ("active", toJson (length active)), ("top", toJson top)]
