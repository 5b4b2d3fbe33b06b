import "lib/stats.sp"
import "lib/other.sp"

def main : Int = mean [1, 2, 3]
