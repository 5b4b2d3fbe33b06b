-- Expression parser: generate arithmetic expressions as text, tokenize and parse them
-- by recursive descent into trees, and evaluate them modulo a prime.

data Expr = Num Int | Add Expr Expr | Sub Expr Expr | Mul Expr Expr

def count : Int = 6000

def depth : Int = 6

def p : Int = 1000003

def nextSeed (s : Int) : Int = (s * 1103515245 + 12345) % 2147483648

-- An expression's tokens, and the generator's seed after it.
def gen (seed : Int) (d : Int) : Pair (List String) Int =
  if d == 0 || r % 5 == 0 then ([showInt (r / 7 % 100)], r)
  else
    match gen r (d - 1) with
    | (left, s1) -> (match gen s1 (d - 1) with
      | (right, s2) -> (wrap (left ++ [op] ++ right), s2))
  where
    r = nextSeed seed
    op = if r / 7 % 3 == 0 then "+" else if r / 7 % 3 == 1 then "-" else "*"
    wrap ts = if r / 21 % 2 == 0 then "(" :: ts ++ [")"] else ts

def generate (n : Int) (seed : Int) : List String =
  if n == 0 then []
  else
    match gen seed depth with
    | (tokens, next) -> join " " tokens :: generate (n - 1) next

-- expr = term (("+" | "-") term)*
def parseExpr (tokens : List String) : Pair Expr (List String) =
  match parseTerm tokens with
  | (left, rest) -> exprTail left rest

def exprTail (left : Expr) (tokens : List String) : Pair Expr (List String) =
  match tokens with
  | "+" :: rest -> (match parseTerm rest with
    | (right, more) -> exprTail (Add left right) more)
  | "-" :: rest -> (match parseTerm rest with
    | (right, more) -> exprTail (Sub left right) more)
  | _ -> (left, tokens)

-- term = factor ("*" factor)*
def parseTerm (tokens : List String) : Pair Expr (List String) =
  match parseFactor tokens with
  | (left, rest) -> termTail left rest

def termTail (left : Expr) (tokens : List String) : Pair Expr (List String) =
  match tokens with
  | "*" :: rest -> (match parseFactor rest with
    | (right, more) -> termTail (Mul left right) more)
  | _ -> (left, tokens)

-- factor = number | "(" expr ")"
def parseFactor (tokens : List String) : Pair Expr (List String) =
  match tokens with
  | "(" :: rest -> (match parseExpr rest with
    | (e, more) -> (e, drop 1 more))
  | t :: rest -> (Num (fromMaybe 0 (parseInt t)), rest)
  | [] -> (Num 0, [])

def eval (e : Expr) : Int =
  match e with
  | Num n -> n
  | Add a b -> (eval a + eval b) % p
  | Sub a b -> (eval a - eval b + p) % p
  | Mul a b -> eval a * eval b % p

def size (e : Expr) : Int =
  match e with
  | Num _ -> 1
  | Add a b -> 1 + size a + size b
  | Sub a b -> 1 + size a + size b
  | Mul a b -> 1 + size a + size b

def main : String =
  join "\n"
    ([ "expressions: " ++ showInt (length texts) ++ ", tokens: " ++ showInt (sum (map (\t -> length (words t)) texts))
     , "nodes: " ++ showInt (sum (map size trees))
     , "checksum: " ++ showInt (sum values % p)
     ] ++ map (\tv -> fst tv ++ " = " ++ showInt (snd tv)) (take 3 short))
  where
    texts = generate count 99
    trees = map (\t -> fst (parseExpr (words t))) texts
    values = map eval trees
    short = filter (\tv -> let n = length (words (fst tv)) in n >= 5 && n < 20) (zip texts values)
