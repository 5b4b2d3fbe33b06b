-- A streamed `main` (issue 28): a file's lines printed back as they are read.
--
--   spindle run print.sp FILE

def main : String = unlines (readLines (fromMaybe "" (head args)))
