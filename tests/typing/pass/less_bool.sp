def main = (True < False, Nothing < Just 1, LT < GT)
