def main (b : Bool) = if b then 1 else "one"
