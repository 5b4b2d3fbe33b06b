-- A type and a constructor may share a name (`Body` below); two types or two
-- constructors may not, and a constructor where a type is expected is no type.
data Body = Body Float
data Body = Other
data Twice = Twice | Twice
data Clash = Body
def fine : Body -> Body = \b -> b
def wrong (x : Twice) : Other = x
