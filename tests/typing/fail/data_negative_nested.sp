-- Through another data type: Cont's parameter is to the left of an arrow, so Bad may
-- not be Cont's argument in its own field; nor may two types hide it from each other.
data Cont (a : Type) = MkCont (a -> Int)

data Bad = MkBad (Cont Bad)

data Ping = MkPing (Pong -> Int)
data Pong = MkPong Ping
