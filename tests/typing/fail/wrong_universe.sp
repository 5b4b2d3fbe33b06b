def T : Type = Type

def main = 1
