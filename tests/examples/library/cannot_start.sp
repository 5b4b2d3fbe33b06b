-- A program that cannot be started is an error, for runResult too; try catches it.
def main =
  ( either (\m -> contains "no-such-program-e2e" m) (\_ -> False) (try (run "no-such-program-e2e" []))
  , exitCode (runResult "no-such-program-e2e" ["x"] "")
  )
