-- Flattened, this program has two definitions named `helper`, two named `main`, and a
-- `length` that shadows the prelude's in one file while another file uses the prelude's.
import "a.sp"
import "b.sp"

def main = (fromA, fromB)
