-- An error in the numeric tier is reported by the machine, at its place.
def down (n : Int) (d : Int) : Int = if n == 0 then 100 / d else down (n - 1) (d - 1)
def main = down 5000 5000
