def Wrap (A : Type) : Type = List A

def W : Type 1 = Wrap Type

def main = 1
