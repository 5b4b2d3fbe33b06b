-- Validation: parse generated sign-up forms into users, collecting the first problem
-- of each invalid form; count problems by kind and summarise the valid users.

record User = { name : String, age : Int, user : String, domain : String }

def formCount : Int = 100000

def names : List String = ["ada", "grace", "alan", "edsger", "barbara", "", "ken", "dennis"]

def domains : List String = ["example.org", "mail.net", "", "uni.edu"]

def nextSeed (s : Int) : Int = (s * 1103515245 + 12345) % 2147483648

def pick (xs : List String) (i : Int) : String = fromMaybe "" (nth (i % length xs) xs)

def form (i : Int) (seed : Int) : String =
  name ++ ";" ++ age ++ ";" ++ email
  where
    name = pick names (seed / 8)
    age = if seed / 4 % 17 != 0 then showInt (seed / 64 % 130 - 10) else "unknown"
    domain = pick domains (seed / 8192)
    email = if seed / 65536 % 9 != 0 then name ++ showInt i ++ "@" ++ domain else name ++ showInt i

-- Either's bind: go on with `f` when the step before succeeded.
def thenCheck {e : Type} {a : Type} {b : Type} (r : Either e a) (f : a -> Either e b) : Either e b =
  match r with
  | Left err -> Left err
  | Right x -> f x

def parseAge (text : String) : Either String Int =
  match parseInt text with
  | Nothing -> Left "age is not a number"
  | Just n if n < 0 -> Left "age is negative"
  | Just n if n > 110 -> Left "age is too large"
  | Just n -> Right n

def parseEmail (text : String) : Either String (Pair String String) =
  match split "@" text with
  | [_] -> Left "email has no @"
  | u :: rest -> if join "@" rest == "" then Left "email has no domain" else Right (u, join "@" rest)
  | [] -> Left "email has no @"

def parseForm (line : String) : Either String User =
  match split ";" line with
  | [name, ageText, emailText] ->
    if name == "" then Left "name is empty"
    else
      thenCheck (parseAge ageText) (\age ->
        thenCheck (parseEmail emailText) (\email ->
          Right { name = name, age = age, user = fst email, domain = snd email }))
  | _ -> Left "wrong number of fields"

def problemKinds : List String =
  [ "age is negative", "age is not a number", "age is too large", "email has no @"
  , "email has no domain", "name is empty", "wrong number of fields" ]

def main : String =
  join "\n"
    ([ "valid: " ++ showInt (length users) ++ ", invalid: " ++ showInt (length problems) ]
      ++ map (\kc -> "  " ++ fst kc ++ ": " ++ showInt (snd kc)) (counted problemKinds problems)
      ++ [ "mean age: " ++ showInt (sum ages / length ages) ++ ", oldest: " ++ showInt (fromMaybe 0 (maximum ages))
         , "domains: " ++ join ", " (map (\dc -> fst dc ++ " " ++ showInt (snd dc)) (counted (sortOn id domains) (map (\u -> u.domain) users)))
         , "first: " ++ (match users with
           | u :: _ -> u.name ++ " " ++ showInt u.age ++ " " ++ u.user
           | [] -> "none")
         ])
  where
    results = map parseForm (zipWith form (range 0 formCount) (drop 1 (iterate nextSeed 3)))
    users = concatMap (\r -> either (\_ -> []) (\u -> [u]) r) results
    problems = concatMap (\r -> either (\e -> [e]) (\_ -> []) r) results
    ages = map (\u -> u.age) users
    counted keys xs = filter (\kc -> snd kc > 0) (map (\k -> (k, length (filter (\x -> x == k) xs))) keys)
