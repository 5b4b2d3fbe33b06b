-- A type defined through itself to the left of an arrow is refused (issue 31), as a
-- data type with such a field is: otherwise `selfApp selfApp` would be a value of the
-- empty type `Void` made without any recursion.
data Void = Absurd Void

def Bad : Type = Bad -> Void

def selfApp (b : Bad) : Void = b b

def boom : Void = selfApp selfApp

def main = 1
