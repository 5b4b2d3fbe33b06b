-- A printf-like function: its type is computed from a format given as a list.
data Spec = D | S | Lit String

def Printf (fmt : List Spec) : Type =
  match fmt with
  | [] -> String
  | Cons spec rest ->
      (match spec with
       | D -> Int -> Printf rest
       | S -> String -> Printf rest
       | Lit s -> Printf rest)

def printf (fmt : List Spec) (acc : String) : Printf fmt =
  match fmt with
  | [] -> acc
  | Cons spec rest ->
      (match spec with
       | D -> \n -> printf rest (acc ++ showInt n)
       | S -> \s -> printf rest (acc ++ s)
       | Lit s -> printf rest (acc ++ s))

def main : String = printf [S, Lit " is ", D, Lit " years old"] "" "ann" 31
