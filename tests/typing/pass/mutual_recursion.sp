-- Mutual recursion between top-level definitions, in any order.
def isEven (n : Int) : Bool = if n == 0 then True else isOdd (n - 1)

def main = (isEven 10, isOdd 7, collatz 27)

def isOdd (n : Int) : Bool = if n == 0 then False else isEven (n - 1)

def collatz (n : Int) : Int = if n == 1 then 0 else 1 + step n

def step (n : Int) : Int = if isEven n then collatz (n / 2) else collatz (3 * n + 1)
