data Wrap (a : Type) = MkWrap a

instance Show (Wrap (Wrap a)) => Show (Wrap a) where
  show w = "w"

def main = show (MkWrap 1)
