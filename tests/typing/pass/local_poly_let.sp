-- Local polymorphic lets with implicit binders.
def main =
  let id {a : Type} (x : a) : a = x in
  let dup {a : Type} (x : a) : Pair a a = (x, x) in
  (id 1, id "s", dup True, id {Float} 0.5)
