def main = True < False
