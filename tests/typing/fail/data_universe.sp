-- A data type whose field holds a type lives in Type 1 (LANGUAGE.md section 3), so it
-- is no Type: otherwise U could hold itself and Type : Type would follow.
data U = MkU Type

def x : Type = U
