-- The prelude's JSON functions (LANGUAGE.md section 8): parse, look up, render.
def doc : String =
  "{\"name\": \"spindle\", \"version\": 2, \"ratio\": 0.5, \"tags\": [\"lazy\", \"typed\"],\n \"nested\": {\"ok\": true, \"none\": null}, \"name\": \"again\"}"

def field (key : String) (j : Json) : String =
  maybe "missing" renderJson (jsonField key j)

def report (j : Json) : List String =
  [field "name" j, field "version" j, field "tags" j, field "nested" j, field "nope" j, renderJson j]

def main =
  ( either (\e -> [e]) report (parseJson doc)
  , parseJson "[1, 2,\n  3,, 4]"
  , parseJson ""
  , parseJson "{\"a\": 1} trailing"
  , renderJson (JArr [JNum 1e300, JNum (0.0 - 0.125), JNum (1.0 / 0.0), JStr "tab\tquote\"", JObj []])
  , either (\e -> JNull) id (parseJson " [ ] ")
  , jsonField "a" (JArr [])
  )
