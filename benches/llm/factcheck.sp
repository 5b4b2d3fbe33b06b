-- Fact-check panel (Epic §5.2, Figs. 14-15; OPAL's FactCheck): each claim goes to a
-- panel of five fact checkers (five samples of one checker). A checker is a
-- tool-using conversation: the model either asks to look a topic up on Wikipedia
-- ("LOOKUP: topic"), and gets the article's summary in the conversation, or gives
-- its verdict ("VERDICT: TRUE" or "VERDICT: FALSE"). The panel's verdict is the
-- majority's.
--
--   OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 spindle run factcheck.sp

def model : String = "gpt-3.5-turbo"

def judges : Int = 5

def maxLookups : Int = 3

def claims : List String =
  [ "the Eiffel Tower in Paris was completed in 1889"
  , "the Great Wall of China can be seen from the Moon with the naked eye"
  , "Mount Everest in Nepal is the highest mountain above sea level"
  ]

def instructions : Message =
  System ("You are a rigorous fact checker. To consult Wikipedia, answer LOOKUP: followed by a topic. "
    ++ "When you are sure, answer VERDICT: TRUE or VERDICT: FALSE, then one sentence of explanation.")

-- The tool: a Wikipedia summary (served as a model of its own, "wiki-lookup").
def wikipedia (topic : String) : String =
  llm "wiki-lookup" ("Summarize the Wikipedia article on " ++ topic)

-- One checker (sample `j`) carrying on its conversation until it gives a verdict.
def converse (j : Int) (lookups : Int) (conversation : List Message) : Bool =
  let answer = replyText (llmChat (sample j (request model conversation))) in
  if startsWith "LOOKUP:" answer && lookups < maxLookups then
    let topic = trim (substring 7 (strLength answer - 7) answer) in
    converse j (lookups + 1)
      (conversation ++ [Assistant answer, User ("Wikipedia: " ++ wikipedia topic)])
  else startsWith "VERDICT: TRUE" answer

def check (claim : String) (j : Int) : Bool =
  converse j 0 [instructions, User ("Is it true that " ++ claim ++ "?")]

def panel (claim : String) : String =
  let verdicts = map (check claim) (range 0 judges) in
  let yes = length (filter id verdicts) in
  (if 2 * yes > judges then "TRUE " else "FALSE")
    ++ "  " ++ showInt yes ++ "/" ++ showInt judges ++ "  " ++ claim

def main : String = unlines (map panel claims)
