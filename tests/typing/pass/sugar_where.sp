-- `where` clauses on defs: one binding per line in let's forms, each recursive,
-- later ones seeing earlier ones; in scope in the whole body, arms and guards.
def sumTo (n : Int) : Int = go n 0
  where
    go k acc = if k == 0 then acc else go (k - 1) (acc + k)

def scaled (xs : List Int) : List Int = map scale xs
  where factor = 10
        scale x = x * factor

def sign (n : Int) : String =
  match n with
  | k if k < limit -> neg
  | _ -> pos
  where
    limit : Int = 0
    neg = "-"
    pos = "+"

def area (w : Int) (h : Int) : Int = double half
  where
    double (x : Int) : Int = 2 * x
    half = w * h / 2

def where = "where is a name elsewhere"

def main = (sumTo 10, scaled [1, 2], map sign [-1, 0, 1], area 3 4, where)
