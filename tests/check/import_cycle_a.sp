import "import_cycle_b.sp"

def a : Int = 1
