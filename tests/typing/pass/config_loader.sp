-- A typed config loader in one line; an optional field may be left out.
record Config = { host : String, port : Int, user : Maybe String } deriving (Show, ToJson, FromJson)
def load (text : String) : Either String Config = match parseJson text with | Left e -> Left e | Right j -> fromJson j
def main = (load "{\"host\": \"h\", \"port\": 80}", load "{\"host\": \"h\", \"port\": 80, \"user\": \"me\"}", load "{\"port\": 1}", renderJson (toJson [Just 1, Nothing]))
