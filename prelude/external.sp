-- The built-in externals (LANGUAGE.md section 7): functions the host implements.

extern run : String -> List String -> String

extern shell : String -> String

extern readFile : String -> String

extern writeFile : String -> String -> String

extern delay : {a : Type} -> Int -> a -> a
