import "no/such/file.sp"

def main : Int = 1
