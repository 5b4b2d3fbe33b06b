data Handler = MkHandler String (Int -> Int) deriving (Show)

def main = 1
