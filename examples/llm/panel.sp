-- A fact-check panel: three judges per claim, asked at once; a claim is TRUE when most
-- judges say so. Run it against any OpenAI-compatible server:
--
--   OPENAI_BASE_URL=http://localhost:11434/v1 spindle run examples/llm/panel.sp llama3.2
--   OPENAI_API_KEY=sk-... spindle run examples/llm/panel.sp gpt-4o-mini
--
-- (The first program argument is the model; `--resume` reuses every answer of an
-- earlier run.)

def model : String =
  match args with
  | Cons m _ -> m
  | Nil -> "gpt-4o-mini"

def claims : List String =
  [ "The Great Wall of China is visible from the Moon with the naked eye."
  , "Water boils at a lower temperature on a high mountain than at sea level."
  , "Bats are blind."
  ]

def judge (claim : String) (i : Int) : String =
  replyText (llmChat (sample i (withTemperature 0.7 (withMaxTokens 60
    (request model [System "You check facts. Answer TRUE or FALSE, then one short sentence.", User claim])))))

def says (verdict : String) : Bool = startsWith "TRUE" (trim verdict)

def decide (claim : String) : String =
  let verdicts = map (judge claim) [1, 2, 3] in
  let yes = length (filter says verdicts) in
  (if yes >= 2 then "TRUE   " else "FALSE  ") ++ claim

def main : String = unlines (map decide claims)
