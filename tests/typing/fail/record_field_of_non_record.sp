def main = (3 : Int).name
