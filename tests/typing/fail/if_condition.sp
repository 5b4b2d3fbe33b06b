def main : Int = if 1 then 2 else 3
