-- A file as a stream through a filter (issue 28): the lines that start with "keep",
-- counted, in constant memory.
--
--   spindle run big.sp FILE

def main : Int = length (filter (startsWith "keep") (readLines (fromMaybe "" (head args))))
