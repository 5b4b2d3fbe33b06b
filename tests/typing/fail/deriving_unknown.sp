data Color = Red | Green deriving (Functor)

def main = 1
