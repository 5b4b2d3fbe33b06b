import "lib/stats.sp"

-- A file's own definition shadows the prelude's.
def replicate (n : Int) : Int = n

def main : Int = mean [1, 2, 3] + replicate 1
