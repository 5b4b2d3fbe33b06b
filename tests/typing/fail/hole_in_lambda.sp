def apply (f : Int -> Bool -> String) : String = f 1 True

def main = apply (\n flag -> ?body)
