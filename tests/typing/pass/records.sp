-- Records: values, fields, updates, patterns, printing (issue 29).
record Sample = { name : String, reads : Int, mapped : Int }

record Box (a : Type) = { item : a, count : Int }

def s : Sample = { name = "S1", reads = 60000, mapped = 55284 }

-- Fields in any order; `.` binds tighter than application.
def t : Sample = { mapped = 1, name = "S2", reads = 2 }

def rate (x : Sample) : Int = x.mapped * 100 / x.reads

def name (x : Sample) : String =
  match x with
  | { name = n, .. } -> n

def total (x : Sample) : Int =
  match x with
  | { reads, mapped, name = _ } -> reads + mapped

def boxed : Box (List Int) = { item = [1, 2], count = 2 }

def main = (
  s.name,
  rate s,
  { s | mapped = 0 },
  name t,
  total t,
  Just { t | name = "S3", reads = 5 },
  boxed.item,
  s == { name = "S1", reads = 60000, mapped = 55284 },
  (\r -> r.reads) t
  )
