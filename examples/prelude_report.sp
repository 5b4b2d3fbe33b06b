-- A small workflow: for every prelude file, count its lines with `wc` and its
-- definitions by reading it, write a report file, and print the report.
-- Run it from the repository root:  spindle run examples/prelude_report.sp

def files : List String = lines (shell "ls prelude/*.sp")

-- `wc -l FILE` prints the count, then the file name.
def lineCount (path : String) : Int =
  fromMaybe 0 (parseInt (fromMaybe "" (head (words (run "wc" ["-l", path])))))

def countDefs (path : String) : Int =
  length (filter (startsWith "def ") (lines (readFile path)))

def describe (path : String) : String =
  path ++ ": " ++ showInt (lineCount path) ++ " lines, "
    ++ showInt (countDefs path) ++ " definitions"

def report : String = unlines (map describe files)

def main : String =
  "wrote " ++ writeFile "target/prelude-report.txt" report ++ "\n" ++ report
