-- City excursions (OPAL §2, Epic §2): a model lists places to visit in a city; for
-- each place, a description, then a plan made from that description; each
-- description is embedded and the excursions are shown best match first for the
-- traveller's interests (cosine similarity: the embeddings are unit vectors).
--
--   OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 spindle run city.sp

def model : String = "gpt-3.5-turbo"

def embedModel : String = "text-embedding-3-small"

def city : String = "Kyoto"

def interests : String = "quiet gardens, old temples and local food"

def nonEmpty (s : String) : Bool = trim s != ""

def places : List String =
  map trim (filter nonEmpty (lines (llm model ("List 10 places to visit in " ++ city ++ ", one per line, names only."))))

def describe (place : String) : String =
  llm model ("Describe " ++ place ++ " in " ++ city ++ " in two sentences.")

def plan (place : String) (description : String) : String =
  llm model ("Here is a description of " ++ place ++ " in " ++ city ++ ":\n" ++ description
    ++ "\nPlan a half-day excursion there in three steps.")

def dot (a : List Float) (b : List Float) : Float =
  foldl (\acc p -> acc + fst p * snd p) 0.0 (zip a b)

def taste : List Float = embed embedModel interests

data Excursion = MkExcursion String String String Float

def excursion (place : String) : Excursion =
  let description = describe place in
  MkExcursion place description (plan place description) (dot taste (embed embedModel description))

def score (e : Excursion) : Float =
  match e with
  | MkExcursion _ _ _ s -> s

def render (e : Excursion) : String =
  match e with
  | MkExcursion place description steps _ -> "## " ++ place ++ "\n" ++ description ++ "\n" ++ steps ++ "\n"

def main : String =
  join "\n" (map render (sortBy (\a b -> score a >= score b) (map excursion places)))
