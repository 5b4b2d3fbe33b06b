-- Functions on functions, booleans, pairs, Maybe and Either.

def id {a : Type} (x : a) : a = x

def const {a : Type} {b : Type} (x : a) (y : b) : a = x

def flip {a : Type} {b : Type} {c : Type} (f : a -> b -> c) (y : b) (x : a) : c = f x y

def compose {a : Type} {b : Type} {c : Type} (f : b -> c) (g : a -> b) (x : a) : c = f (g x)

def not (b : Bool) : Bool = if b then False else True

def fst {a : Type} {b : Type} (p : Pair a b) : a =
  match p with
  | (x, _) -> x

def snd {a : Type} {b : Type} (p : Pair a b) : b =
  match p with
  | (_, y) -> y

def maybe {a : Type} {b : Type} (d : b) (f : a -> b) (m : Maybe a) : b =
  match m with
  | Nothing -> d
  | Just x -> f x

def fromMaybe {a : Type} (d : a) (m : Maybe a) : a =
  match m with
  | Nothing -> d
  | Just x -> x

def either {a : Type} {b : Type} {c : Type} (f : a -> c) (g : b -> c) (e : Either a b) : c =
  match e with
  | Left x -> f x
  | Right y -> g y

-- The program's arguments: the words after its file name on the command line
-- (`spindle run wf.sp -- a b`, or `spindle run wf.sp a b`). Empty here: `spindle run`
-- puts the arguments in place of this body after type checking, so checking, `encode`
-- and `hash` always see the empty list.
def args : List String = []
