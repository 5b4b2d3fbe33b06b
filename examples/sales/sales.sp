-- Sales by region: one CSV file per region (`product,quantity,price`), each checked
-- and summed by `awk` (`check.awk`) and its best seller found by a shell pipeline,
-- all files at once; a file that fails its check is reported and the others go on;
-- the report is written as JSON.
--
--   spindle run sales.sp -- data out        (folder of CSV files, folder for the report)
--   spindle run --resume sales.sp -- data out

def folder : String = fromMaybe "data" (nth 0 args)

def outDir : String = fromMaybe "out" (nth 1 args)

-- The CSV files, sorted (`glob` sorts).
def files : List String = glob (folder ++ "/*.csv")

-- `data/north.csv` is the region `north`.
def region (path : String) : String =
  let name = fromMaybe path (last (split "/" path)) in
  substring 0 (strLength name - 4) name

-- A region's figures, and a region skipped: records, written as JSON objects by their
-- derived `ToJson` instances.
record Sales = { region : String, lines : Int, total : Float, best : String } deriving (ToJson)

record Skipped = { region : String, error : String } deriving (ToJson)

data Summary = Summed Sales | Failed Skipped

-- `check.awk` checks a file and prints `lines total`. `run` fails the program when
-- `awk` fails; `try` below turns that into a value.
def summed (path : String) : Pair Int Float =
  match words (run "awk" ["-F", ",", "-f", "check.awk", path]) with
  | [n, total] -> (fromMaybe 0 (parseInt n), fromMaybe 0.0 (parseFloat total))
  | _ -> error ("unexpected output of awk for " ++ path)

-- The product sold most (by quantity): a pipeline, run with pipefail.
def bestSeller (path : String) : String =
  trim (shell ("tail -n +2 " ++ path ++ " | sort -t, -k2,2nr | head -n 1 | cut -d, -f1"))

-- A failure's message ends with the tool's standard error: keep its last line.
def summary (path : String) : Summary =
  match try (summed path) with
  | Right (n, total) -> Summed { region = region path, lines = n, total = total, best = bestSeller path }
  | Left why -> Failed { region = region path, error = trim (fromMaybe why (last (lines why))) }

def summaries : List Summary = map summary files

def summaryJson (s : Summary) : Json =
  match s with
  | Summed x -> toJson x
  | Failed x -> toJson x

def toLine (s : Summary) : String =
  match s with
  | Summed x ->
      x.region ++ ": " ++ showInt x.lines ++ " lines, " ++ showFloat x.total ++ " in all, best seller " ++ x.best
  | Failed x -> x.region ++ ": skipped (" ++ x.error ++ ")"

def total : Float =
  foldl (\acc s -> match s with | Summed x -> acc + x.total | Failed _ -> acc) 0.0 summaries

def report : Json =
  JObj [("folder", JStr folder), ("regions", JArr (map summaryJson summaries)), ("total", JNum total)]

-- Make the output folder, then print a line per region and write the report.
def main : String =
  after (run "mkdir" ["-p", outDir])
    (join "\n" (map toLine summaries
      ++ ["total: " ++ showFloat total,
          "wrote " ++ writeFile (outDir ++ "/report.json") (renderJson report ++ "\n")]))
