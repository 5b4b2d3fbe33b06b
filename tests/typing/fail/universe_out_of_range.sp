-- Universe levels are bounded (LANGUAGE.md section 3): a larger level is an error,
-- never a wrap-around or a saturation that would make Type 4294967295 its own type.
def u : Type 4294967295 = Type 4294967295
