-- `List` takes a type in Type; a list of types would be a `List Type`.
def ts = [Int, Bool]
