-- getEnv, fileExists, listDir and glob (LANGUAGE.md 7.2), run in a folder that holds
-- data/a.csv, data/b.csv, data/notes.txt, data/sub/c.csv, data/sub/deep/d.csv.
def main =
  ( getEnv "SPINDLE_E2E_VAR"
  , getEnv "SPINDLE_E2E_UNSET"
  , (fileExists "data", fileExists "data/a.csv", fileExists "nope.txt")
  , listDir "data"
  , glob "data/*.csv"
  , glob "data/**/*.csv"
  , glob "nothing/*.csv"
  , args
  )
