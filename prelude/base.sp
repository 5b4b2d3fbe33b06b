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

-- `seq a b` evaluates `a` to weak head normal form (its outermost constructor, number
-- or string), then is `b` (docs/strictness.md).
def seq {a : Type} {b : Type} (x : a) (y : b) : b = prim_seq x y

-- Workflow combinators (LANGUAGE.md 7.2).

-- `try x` evaluates `x` to normal form; a runtime error inside it (a failing external,
-- `error`, a failed match) becomes `Left message` instead of stopping the program.
def try {a : Type} (x : a) : Either String a =
  match prim_catch x with
  | Nothing -> Right x
  | Just message -> Left message

-- `after a b` evaluates `a` to normal form, then is `b`: it orders effects that no data
-- connects.
def after {a : Type} {b : Type} (first : a) (then_ : b) : b = prim_after first then_

-- `trace msg x` writes `msg` and a newline to standard error when it is evaluated, then
-- is `x`.
def trace {a : Type} (msg : String) (x : a) : a = prim_trace msg x

-- `reading files x` is `x`, whose process calls also read `files` (inputs a tool
-- finds by itself, which its command line does not name); `writing files x` likewise
-- for outputs. The result store keys and checks them (LANGUAGE.md 11).
def reading {a : Type} (files : List String) (x : a) : a = prim_reading files x

def writing {a : Type} (files : List String) (x : a) : a = prim_writing files x
