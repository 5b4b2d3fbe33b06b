-- Characters: a `Char` is a Unicode scalar value, written `'a'`, `'\n'`, `'\''`,
-- `'\u{1F600}'`. `==` and `<`, `<=`, `>`, `>=` compare code points.

-- The characters of a string, in order.
def chars (s : String) : List Char = prim_chars s

-- The string of a list of characters.
def fromChars (cs : List Char) : String = prim_fromChars cs

-- The one-character string.
def charToString (c : Char) : String = prim_charToString c

-- A character's code point.
def ord (c : Char) : Int = prim_ord c

-- The character of a code point; a runtime error outside 0 to 1114111 and for the
-- surrogates 55296 to 57343.
def chr (n : Int) : Char = prim_chr n

-- `'0'` to `'9'`.
def isDigit (c : Char) : Bool = c >= '0' && c <= '9'

-- A letter (Unicode `Alphabetic`).
def isAlpha (c : Char) : Bool = prim_charIsAlpha c

-- A letter or a digit (Unicode `Alphabetic` or numeric).
def isAlphaNum (c : Char) : Bool = prim_charIsAlphaNum c

-- White space (Unicode `White_Space`: space, tab, newline, ...).
def isSpace (c : Char) : Bool = prim_charIsSpace c

-- An upper-case letter (Unicode `Uppercase`).
def isUpper (c : Char) : Bool = prim_charIsUpper c

-- A lower-case letter (Unicode `Lowercase`).
def isLower (c : Char) : Bool = prim_charIsLower c

-- The upper case of a character; the character itself when it has none, or when
-- Unicode maps it to several characters (`'ß'`).
def toUpper (c : Char) : Char = prim_charToUpper c

-- The lower case of a character; the character itself when it has none, or when
-- Unicode maps it to several characters.
def toLower (c : Char) : Char = prim_charToLower c
