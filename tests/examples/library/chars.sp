-- Characters (issue 30): literals and their escapes, printing, comparisons, patterns,
-- and every function of prelude/char.sp.

def vowel (c : Char) : Bool =
  match toLower c with
  | 'a' -> True
  | 'e' -> True
  | 'i' -> True
  | 'o' -> True
  | 'u' -> True
  | _ -> False

def caesar (k : Int) (c : Char) : Char =
  if isLower c then chr (ord 'a' + (ord c - ord 'a' + k) % 26) else c

def digitsValue (s : String) : Int =
  foldl (\acc c -> acc * 10 + ord c - ord '0') 0 (filter isDigit (chars s))

def classes (c : Char) : List Bool =
  [isDigit c, isAlpha c, isAlphaNum c, isSpace c, isUpper c, isLower c]

def main =
  ( ['a', 'Z', '0', ' ', '\n', '\t', '\r', '\\', '\'', '"', '\0', '\u{1F600}', 'é', '\u{41}']
  , ( 'a' == 'a', 'a' != 'b', 'a' < 'b', 'b' <= 'b', 'z' > 'y', 'A' >= 'a'
    , compare 'a' 'b', compare 'b' 'b', compare 'é' 'e' )
  , ( chars "héllo, 😀", chars "", fromChars ['o', 'k'], fromChars []
    , fromChars (reverse (chars "stressed")), charToString 'x' ++ charToString '\n' )
  , (ord 'a', ord '\0', ord '😀', chr 65, chr 0, ord (chr 1114111), chr 233)
  , (map classes ['7', 'q', 'Q', ' ', 'é', '_', '\u{663}'])
  , (map toUpper (chars "aßéz1"), map toLower (chars "AÉZ!"), toUpper 'ǆ', toLower 'İ')
  , (filter vowel (chars "Programming Language"), fromChars (map (caesar 3) (chars "xyz abc")))
  , digitsValue "a1b2c3"
  , (show 'a', show '\'', show '\n', show "it's", show ['"', '\\'], show (Just 'x'))
  , (toJson 'x', toJson ['a', '\n'], renderJson (toJson '"'))
  , ( (fromJson (JStr "q") : Either String Char)
    , (fromJson (JStr "ab") : Either String Char)
    , (fromJson (JStr "") : Either String Char)
    , (fromJson (JNum 1.0) : Either String Char)
    , (fromJson (JArr [JStr "a", JStr "b"]) : Either String (List Char)) )
  , sortBy (\x y -> x <= y) (chars "spindle")
  , sortOn ord (chars "zyx")
  , Just 'c'
  )
