def main = (True : Int)
