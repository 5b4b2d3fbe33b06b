-- Strings. Lengths and positions count Unicode scalar values.

def strLength (s : String) : Int = prim_strLength s

-- `substring start len s`.
def substring (start : Int) (len : Int) (s : String) : String = prim_substring start len s

def startsWith (prefix : String) (s : String) : Bool = prim_startsWith prefix s

def endsWith (suffix : String) (s : String) : Bool = prim_endsWith suffix s

def contains (needle : String) (s : String) : Bool = prim_contains needle s

-- `split sep s`: the pieces between occurrences of `sep` (empty pieces kept).
def split (sep : String) (s : String) : List String = prim_split sep s

-- `join sep xs`: the strings with `sep` between them.
def join (sep : String) (xs : List String) : String = prim_join sep xs

def concatStrings (xs : List String) : String = prim_join "" xs

def trim (s : String) : String = prim_trim s

-- The lines of a text; a final newline ends the last line rather than starting one.
def lines (s : String) : List String = prim_lines s

def unlines (xs : List String) : String = concatStrings (map (\l -> l ++ "\n") xs)

-- The words of a text: the maximal runs of characters that are not white space.
def words (s : String) : List String = prim_words s

def showInt (n : Int) : String = prim_showInt n

def showFloat (x : Float) : String = prim_showFloat x

def parseInt (s : String) : Maybe Int = prim_parseInt s

def parseFloat (s : String) : Maybe Float = prim_parseFloat s

-- `x` with `digits` decimals, correctly rounded (`showFixed 2 3.14159` is "3.14").
def showFixed (digits : Int) (x : Float) : String = prim_showFixed digits x

-- `s` with spaces before it up to `width` characters (unchanged if already as wide).
def padLeft (width : Int) (s : String) : String =
  let k = width - strLength s in if k <= 0 then s else concatStrings (replicate k " ") ++ s

-- `s` with spaces after it up to `width` characters.
def padRight (width : Int) (s : String) : String =
  let k = width - strLength s in if k <= 0 then s else s ++ concatStrings (replicate k " ")
