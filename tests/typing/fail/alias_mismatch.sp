def Name : Type = String

def n : Name = 42

def main = n
