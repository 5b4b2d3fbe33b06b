def main = show []
