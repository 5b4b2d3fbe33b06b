-- A complete workflow: count the words of every text file in a folder with `wc`, all
-- files at once; find each file's first TODO with `grep`; list the most frequent words
-- with a shell pipeline; write a JSON report and print it.
--
--   spindle run examples/wordcount/wordcount.sp -- examples/wordcount/texts report.json
--   spindle run --format json examples/wordcount/wordcount.sp examples/wordcount/texts
--
-- Arguments: the folder (default `.`), then the report file (default `wordcount.json`).
-- The calls to `wc` and `grep` do not depend on each other, so Spindle runs them in
-- parallel by itself: the run takes about as long as the slowest file, not the sum.

def folder : String = fromMaybe "." (head args)

def reportFile : String = fromMaybe "wordcount.json" (nth 1 args)

-- The text files, sorted (`glob` sorts its result).
def files : List String = glob (folder ++ "/*.txt")

-- `wc -w FILE` prints the count, then the file name. `run` fails the program when
-- `wc` fails; `try` below turns that into a value.
def wordCount (path : String) : Int =
  fromMaybe 0 (parseInt (fromMaybe "" (head (words (run "wc" ["-w", path])))))

-- `grep` exits 1 when nothing matches, which is no failure here: `runResult` gives the
-- exit code and the output as a value.
def firstTodo (path : String) : Json =
  let found = runResult "grep" ["-n", "-m", "1", "TODO", path] "" in
  if exitCode found == 0 then JStr (trim (stdout found)) else JNull

-- One file's entry of the report, a record written as a JSON object by its derived
-- `ToJson` instance; a file that `wc` cannot read is reported, and the other files go on.
record Counted = { file : String, words : Int, todo : Json } deriving (ToJson)

record Unreadable = { file : String, error : String } deriving (ToJson)

def entry (path : String) : Json =
  match try (wordCount path) with
  | Right n -> toJson { file = path, words = n, todo = firstTodo path }
  | Left why -> toJson { file = path, error = why }

def total : Int = sum (map (\p -> either (\_ -> 0) id (try (wordCount p))) files)

-- A file name as one shell word.
def shellQuote (s : String) : String = "'" ++ join "'\\''" (split "'" s) ++ "'"

-- The five most frequent words of all the files, counted by a pipeline (`shell` runs
-- it with pipefail, so a failing stage fails the call).
def topWords : List String =
  if length files == 0 then []
  else
    map trim (lines (shell ("cat " ++ join " " (map shellQuote files)
      ++ " | tr -cs '[:alpha:]' '\\n' | tr '[:upper:]' '[:lower:]' | grep -v '^$'"
      ++ " | sort | uniq -c | sort -rn | head -5")))

record Report = { folder : String, files : List Json, total : Int, top : List String } deriving (ToJson)

def report : Json = toJson { folder = folder, files = map entry files, total = total, top = topWords }

-- Write the report, then print it; a missing folder is an error with a clear message.
def main : Json =
  if fileExists folder then after (writeFile reportFile (renderJson report ++ "\n")) report
  else error ("no such folder: " ++ folder)
