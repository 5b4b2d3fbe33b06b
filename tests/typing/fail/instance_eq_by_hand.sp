data Color = Red | Green

instance Eq Color

def main = Red == Green
