extern launchRockets : String -> String
