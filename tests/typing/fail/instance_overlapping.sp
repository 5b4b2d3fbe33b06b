data Color = Red | Green deriving (Show)

instance Show Color where
  show c = "colour"

def main = show Red
