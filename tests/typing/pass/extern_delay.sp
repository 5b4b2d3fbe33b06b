-- extern declarations: only the type is given; delay is the harmless one to run.
extern delay : {a : Type} -> Int -> a -> a

extern readFile : String -> String

def slow (x : Int) : Int = delay 1 (x * 2)

def main = (delay 1 "x", slow 21, delay {Bool} 1 True)
