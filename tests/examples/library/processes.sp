-- runResult with standard input, try, after, trace and shell's pipefail (LANGUAGE.md 7.2).
def grep (pat : String) (input : String) : Process = runResult "grep" [pat] input

def show (p : Process) : Pair Int (Pair String String) = (exitCode p, stdout p, stderr p)

-- A failure's message starts with its place; keep what follows it.
def why {a : Type} (r : Either String a) : String =
  either (\m -> if contains "exited with status 1" m then "failed: status 1" else m) (\_ -> "ok") r

def main =
  ( show (grep "b" "a\nb\nc\nbb\n")
  , show (grep "z" "a\nb\n")
  , show (runResult "sh" ["-c", "cat; echo err >&2; exit 4"] "from stdin\n")
  , why (try (shell "false | true"))
  , why (try (shell "true | false"))
  , shell "echo abc | tr a-c x-z"
  , try (1 + 2)
  , after (writeFile "first.txt" "written first") (readFile "first.txt")
  , trace "a message for standard error" 42
  )
