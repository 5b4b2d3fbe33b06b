def f (x : Int) : Int = x

def g : Int = 1

def f (y : Int) : Int = y
