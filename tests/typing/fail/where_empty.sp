-- A `where` with no binding after it.
def f (x : Int) : Int = x + y
  where

def main = f 1
