data Shape = Circle Float | Square Float
--   ^ definition.class
--           ^ definition.function

interface Area (a : Type) where
--        ^ definition.interface
  area : a -> Float
  -- <- definition.method

instance Area Shape where
--       ^ reference.implementation
  area s = 1.0
  -- <- definition.method

def total (xs : List Shape) : Float = sum (map area xs)
--  ^ definition.function
--                                    ^ reference.call
