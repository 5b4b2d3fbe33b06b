def helper (s : String) : String = s ++ "!"

def fromB : String = helper "x" ++ showInt (length [1, 2])
