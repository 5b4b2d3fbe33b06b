-- Infix cons `::` (docs/syntax.md): right-associative, at the level of `++`, in
-- expressions and in patterns (nested, and inside other patterns).
def sumList (xs : List Int) : Int =
  match xs with
  | [] -> 0
  | x :: rest -> x + sumList rest

def pairs (xs : List Int) : List (Pair Int Int) =
  match xs with
  | a :: b :: rest -> (a, b) :: pairs rest
  | _ -> []

def heads (xss : List (List String)) : List String =
  match xss with
  | (h :: _) :: more -> h :: heads more
  | [] :: more -> heads more
  | [] -> []

def firstJust (xs : List (Maybe Int)) : Int =
  match xs with
  | Just n :: _ -> n
  | Nothing :: rest -> firstJust rest
  | [] -> 0

def main =
  ( 1 + 2 :: [10]
  , 0 :: 1 :: [] ++ [2]
  , sumList (1 :: 2 :: [3])
  , pairs [1, 2, 3, 4, 5]
  , heads [["a", "b"], [], ["c"]]
  , firstJust [Nothing, Just 7, Just 8]
  , (\(x : Int) -> x :: []) 5
  )
