-- A test that fails part way along a range fails where the calls would: the
-- elements before it are skipped, the failing one is left to the machine, which
-- reports the error at its place.
def check (x : Int) : Bool = if x == 5000 then error "no fives" else False

def main = filter (\x -> check x) (range 0 10000)
