interface Pretty (a : Type) where
  pretty : a -> String

instance Pretty Int where
  pretty n = "one"

instance Pretty Int where
  pretty n = "two"

def main = pretty 1
