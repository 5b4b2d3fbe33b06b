import "import_cycle_a.sp"

def b : Int = 2
