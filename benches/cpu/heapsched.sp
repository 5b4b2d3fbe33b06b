-- Priority scheduling: a queue of jobs ordered by (priority, id); each job taken from
-- the front may schedule a follow-up job. Uses a leftist heap.

data Heap = Empty | Node Int (Pair Int Int) Heap Heap

record State = { heap : Heap, nextId : Int, spawned : Int, processed : Int, checksum : Int, first : List Int, clock : Int }

def jobCount : Int = 80000

def followUps : Int = 80000

def nextSeed (s : Int) : Int = (s * 1103515245 + 12345) % 2147483648

def rank (h : Heap) : Int =
  match h with
  | Empty -> 0
  | Node r _ _ _ -> r

def makeNode (x : Pair Int Int) (a : Heap) (b : Heap) : Heap =
  if rank a >= rank b then Node (rank b + 1) x a b else Node (rank a + 1) x b a

def merge (a : Heap) (b : Heap) : Heap =
  match (a, b) with
  | (Empty, _) -> b
  | (_, Empty) -> a
  | (Node _ x al ar, Node _ y bl br) ->
    if x <= y then makeNode x al (merge ar b) else makeNode y bl (merge a br)

def push (x : Pair Int Int) (h : Heap) : Heap = merge (Node 1 x Empty Empty) h

def popMin (h : Heap) : Maybe (Pair (Pair Int Int) Heap) =
  match h with
  | Empty -> Nothing
  | Node _ x l r -> Just (x, merge l r)

def step (s : State) : State =
  match popMin s.heap with
  | Nothing -> s
  | Just (job, rest) ->
    match job with
    | (priority, ident) ->
      let done = { s | heap = rest, processed = s.processed + 1, clock = max s.clock priority
                     , checksum = (s.checksum * 31 + ident) % 1000000007
                     , first = if length s.first < 8 then s.first ++ [ident] else s.first } in
      if ident % 3 != 1 && s.spawned < followUps then
        { done | heap = push (priority + 1 + ident % 50, s.nextId) rest, nextId = s.nextId + 1, spawned = s.spawned + 1 }
      else done

def runAll (s : State) : State =
  match s.heap with
  | Empty -> s
  | _ -> runAll (step s)

def main : String =
  join "\n"
    [ "processed: " ++ showInt final.processed ++ ", follow-ups: " ++ showInt final.spawned
    , "checksum: " ++ showInt final.checksum
    , "last priority: " ++ showInt final.clock
    , "first: " ++ show final.first
    ]
  where
    jobs = zipWith (\i seed -> (seed / 1024 % 1000, i)) (range 0 jobCount) (drop 1 (iterate nextSeed 23))
    initial = foldl (\h job -> push job h) Empty jobs
    final = runAll { heap = initial, nextId = jobCount, spawned = 0, processed = 0, checksum = 0, first = [], clock = 0 }
