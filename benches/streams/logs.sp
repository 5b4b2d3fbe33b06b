-- Log following (issue 28): a service log read as a stream of lines (`tail -n +1`, as a
-- follower would start), the errors picked out, and a short tool run on each error as
-- soon as its line has been read; the tools' outputs printed in order.
--
--   spindle run logs.sp big.log

def logFile : String = fromMaybe "big.log" (head args)

def isError (line : String) : Bool = contains " ERROR " line

def tool (line : String) : String =
  run "sh" ["-c", "sleep 0.1; printf 'ticket: %s\\n' \"$1\"", "tool", line]

def main : String = concatStrings (map tool (filter isError (shellLines ("tail -n +1 " ++ logFile))))
