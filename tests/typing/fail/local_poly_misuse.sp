def main =
  let id {a : Type} (x : a) : a = x in
  (id 1 : String)
