data Maybe (a : Type) = Nothing | Just a
-- <- keyword
--    ^ type
--          ^ variable.parameter
--               ^ type.builtin
--                      ^ constructor

def fromMaybe {a : Type} (d : a) (m : Maybe a) : a =
-- <- keyword
--  ^ function
--             ^ variable.parameter
  match m with
  -- <- keyword
  | Just x -> x
  --  ^ constructor
  --       ^ operator
  | Nothing -> d
  where
  -- <- keyword
    unused = "text" ++ 'c'
    -- <- variable
    --       ^ string
    --              ^ operator
    --                 ^ string.special

total def count (xs : List Int) : Int = length xs - -1 {- a note -}
-- <- keyword
--    ^ keyword
--                                      ^ function
--                                                ^ operator
--                                                  ^ number
--                                                     ^ comment
