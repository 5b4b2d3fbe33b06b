-- JSON (LANGUAGE.md section 8). Reading JSON text and writing strings and numbers as
-- JSON are the host's (serde_json, through three primitives that deal only in strings);
-- the rest is here.

data Json = JNull | JBool Bool | JNum Float | JStr String | JArr (List Json) | JObj (List (Pair String Json)) deriving (Show, Eq, Ord)

-- The JSON value of a text, or `Left` with a message naming the line and column of the
-- first error.
def parseJson (s : String) : Either String Json =
  match prim_parseJson s with
  | Cons "!" rest -> Left (fromMaybe "malformed JSON" (head rest))
  | toks -> Right (fst (parseJsonValue toks))

-- `prim_parseJson` answers with the value's tokens in prefix order: a tag (`n`, `t`,
-- `f`; `#` or `s` then the number's or the string's text; `[` items `]`; `{` entries
-- `}`, each entry `:` then the key, then the value). One value from the front of the
-- tokens, and the tokens after it.
def parseJsonValue (toks : List String) : Pair Json (List String) =
  match toks with
  | Cons "n" rest -> (JNull, rest)
  | Cons "t" rest -> (JBool True, rest)
  | Cons "f" rest -> (JBool False, rest)
  | Cons "#" (Cons x rest) -> (JNum (fromMaybe 0.0 (parseFloat x)), rest)
  | Cons "s" (Cons x rest) -> (JStr x, rest)
  | Cons "[" rest -> let items = parseJsonItems rest in (JArr (fst items), snd items)
  | Cons "{" rest -> let entries = parseJsonEntries rest in (JObj (fst entries), snd entries)
  | _ -> (JNull, [])

-- An array's items, up to and without its `]`.
def parseJsonItems (toks : List String) : Pair (List Json) (List String) =
  match toks with
  | [] -> ([], [])
  | Cons "]" rest -> ([], rest)
  | _ ->
    let item = parseJsonValue toks in
    let more = parseJsonItems (snd item) in
    (Cons (fst item) (fst more), snd more)

-- An object's entries, up to and without its `}`.
def parseJsonEntries (toks : List String) : Pair (List (Pair String Json)) (List String) =
  match toks with
  | Cons ":" (Cons key rest) ->
    let value = parseJsonValue rest in
    let more = parseJsonEntries (snd value) in
    (Cons (key, fst value) (fst more), snd more)
  | _ -> ([], drop 1 toks)

-- Compact JSON text, keys in the order given. Integral numbers below 2^53 are written
-- without a fraction (`3`), others as the shortest text that reads back (`0.1`,
-- `1e300`); `inf`, `-inf` and `NaN`, which JSON has no number for, as the strings
-- "inf", "-inf" and "NaN".
def renderJson (j : Json) : String =
  match j with
  | JNull -> "null"
  | JBool b -> if b then "true" else "false"
  | JNum x -> prim_jsonNumber x
  | JStr s -> prim_jsonString s
  | JArr xs -> "[" ++ join "," (map renderJson xs) ++ "]"
  | JObj entries -> "{" ++ join "," (map renderJsonEntry entries) ++ "}"

-- One object entry as `"key":value`.
def renderJsonEntry (entry : Pair String Json) : String =
  prim_jsonString (fst entry) ++ ":" ++ renderJson (snd entry)

-- The value of an object's field (the first, if the key is repeated); `Nothing` for a
-- missing key or a value that is not an object.
def jsonField (key : String) (j : Json) : Maybe Json =
  match j with
  | JObj entries -> lookup key entries
  | _ -> Nothing
