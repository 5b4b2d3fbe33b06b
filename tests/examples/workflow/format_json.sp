-- Every kind of value, printed with `spindle run --format json` (LANGUAGE.md section 9).
data Shape = Circle Float | Rect Int Int

def main =
  ( 42
  , -1.5
  , 2.0
  , [1.0 / 0.0, 0.0 - 1.0 / 0.0, 0.0 / 0.0]
  , "quote \" backslash \\ newline \n tab \t é"
  , (True, False, ())
  , ([] : List Int)
  , [Just (Circle 1.5), Nothing]
  , Rect 2 (-3)
  , JObj [("name", JStr "spindle"), ("n", JNum 3.0), ("xs", JArr [JNull, JBool True, JNum 0.25])]
  , ((1, 2), (3, (4, 5)))
  , (Left "no" : Either String Int)
  , Z
  )
