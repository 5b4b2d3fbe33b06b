-- Tree of thoughts (Yao et al.; as in PopPy Fig. 1 and Epic Fig. 13): beam search
-- where a model proposes the next steps from a state and scores each new state.
-- Depth 3, beam width 5: each state of the beam gets one "propose" call (several
-- steps, one per line); each candidate gets one "value" call (a score from 1 to 10);
-- the best five candidates, by score, are the next beam.
--
--   OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 spindle run tot.sp

def model : String = "gpt-4o-mini"

def task : String = "Use the numbers 4 9 10 13 and + - * / to obtain 24."

def width : Int = 5

def depth : Int = 3

def nonEmpty (s : String) : Bool = trim s != ""

-- The steps the model proposes from a state (one per line of its reply).
def propose (state : String) : List String =
  let prompt = "Task: " ++ task ++ "\nSteps so far: " ++ state
    ++ "\nPropose possible next steps, one per line." in
  map trim (filter nonEmpty (lines (llm model prompt)))

-- How promising a state is, by the model's own judgement.
def value (state : String) : Int =
  let prompt = "Task: " ++ task ++ "\nSteps so far: " ++ state
    ++ "\nHow likely is it that these steps lead to 24? Answer with a score from 1 to 10, a single number." in
  fromMaybe 0 (parseInt (trim (llm model prompt)))

def extend (state : String) (step : String) : String =
  if state == "" then step else state ++ "; " ++ step

-- One level of the search: expand every state, score every candidate, keep the best.
def searchStep (beam : List String) : List (Pair Int String) =
  let candidates = concatMap (\s -> map (extend s) (propose s)) beam in
  let scored = map (\c -> (value c, c)) candidates in
  take width (sortBy (\a b -> fst a >= fst b) scored)

def search (d : Int) (beam : List String) : List (Pair Int String) =
  let next = searchStep beam in
  if d <= 1 then next else search (d - 1) (map snd next)

def main : String =
  unlines (map (\p -> showInt (fst p) ++ "  " ++ snd p) (search depth [""]))
