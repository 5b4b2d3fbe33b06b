def main : Int = arrayAt 5 (arrayFromList [1, 2, 3])
