-- A hole under a constructor reports the type the constructor's field needs there,
-- known once the application is checked against Maybe Int.
def f : Maybe Int = Just ?x

def g (n : Int) : List (Maybe Int) = [Just n, Just ?y]
