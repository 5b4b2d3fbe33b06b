-- A data type used as a record with accessor functions.
data Person = MkPerson String Int (List String)

def name (p : Person) : String =
  match p with
  | MkPerson n _ _ -> n

def age (p : Person) : Int =
  match p with
  | MkPerson _ a _ -> a

def older (p : Person) : Person =
  match p with
  | MkPerson n a tags -> MkPerson n (a + 1) (Cons "older" tags)

def main = (name (older (MkPerson "ann" 30 [])), age (older (MkPerson "bob" 1 [])), older (MkPerson "c" 0 ["x"]))
