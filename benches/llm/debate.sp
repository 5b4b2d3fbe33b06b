-- Multi-agent debate (Du et al.; PopPy's DAE): four agents answer a question, then
-- for three rounds each agent sees its own previous answer and the others' and
-- answers again; a judge reads the last round and gives the final answer.
--
--   OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 spindle run debate.sp

def model : String = "gpt-4o-mini"

def question : String =
  "Which city is the capital of Australia? Options: Canberra, Sydney, Melbourne, Perth."

def agents : Int = 4

def rounds : Int = 3

def firstAnswer (i : Int) : String =
  llm model ("You are agent " ++ showInt i ++ " in a debate. " ++ question
    ++ "\nGive your answer as 'Answer: <option>', then your argument in two sentences.")

def nextAnswer (i : Int) (round : Int) (own : String) (others : List String) : String =
  llm model ("You are agent " ++ showInt i ++ " in a debate, round " ++ showInt round ++ ". " ++ question
    ++ "\nYour previous answer:\n" ++ own
    ++ "\nThe other agents said:\n" ++ unlines others
    ++ "Considering their arguments, give your updated answer as 'Answer: <option>', then your argument in two sentences.")

-- Everyone's answer but agent i's.
def othersOf (i : Int) (answers : List String) : List String =
  map snd (filter (\p -> fst p != i) (zip (range 0 agents) answers))

def debate (round : Int) (answers : List String) : List String =
  if round > rounds then answers
  else debate (round + 1) (map (\p -> nextAnswer (fst p) round (snd p) (othersOf (fst p) answers)) (zip (range 0 agents) answers))

def transcript : List String = debate 1 (map firstAnswer (range 0 agents))

def verdict : String =
  llm model ("Summarize the debate and give the final answer as 'Final answer: <option>'. " ++ question
    ++ "\nThe agents' last answers:\n" ++ unlines transcript)

def main : String =
  unlines (map (\p -> "agent " ++ showInt (fst p) ++ ": " ++ snd p) (zip (range 0 agents) transcript))
    ++ verdict
