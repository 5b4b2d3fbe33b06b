-- A String main prints raw.
def greeting : String = "hello\n\"world\""

def main : String = greeting
