def T : Type 1 = Type 1

def main = 1
