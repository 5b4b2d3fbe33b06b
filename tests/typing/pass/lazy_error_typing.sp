-- error is polymorphic; laziness means unused errors never run.
def unreachable {a : Type} : a = error "never"

def main =
  ( const 1 (error "unused")
  , if True then "ok" else error "no"
  , False && error "lazy"
  , length [unreachable, unreachable {Int}]
  )
