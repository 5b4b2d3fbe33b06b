-- Result types and parameter types omitted where they can be inferred.
def inc x = x + 1

def greeting = "hi"

def twice (f : Int -> Int) x = f (f x)

def wrap (x : Int) = Just x

def main = (inc 1, greeting, twice inc 5, wrap 3)
