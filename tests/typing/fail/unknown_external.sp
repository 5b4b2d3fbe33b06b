extern launchRockets : Int -> String

def main = 1
