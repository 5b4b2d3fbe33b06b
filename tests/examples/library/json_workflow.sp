-- JSON in a workflow: a tool's output parsed, fields read, a report rendered.
def parsed : Either String Json = parseJson (shell "printf '{\"n\": 3, \"names\": [\"x\", \"y\"]}'")

def n : Maybe Json = either (\_ -> Nothing) (jsonField "n") parsed

def main =
  ( n
  , either (\e -> e) renderJson parsed
  , either (\e -> e) renderJson (parseJson "{\n  \"a\": [1, 2,],\n  \"b\": true\n}")
  , renderJson (JObj [("status", JStr "ok"), ("count", JNum 2.0), ("items", JArr [JBool True, JNull])])
  )
