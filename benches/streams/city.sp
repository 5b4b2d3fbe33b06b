-- City excursions, streamed (OPAL §2 and Table 1, CityExcursions): a model lists places
-- to visit in a city, one per line, as a stream; as soon as a place's line has arrived,
-- its own streamed call asks for an excursion there (a stream of streams); each
-- section is printed as it comes, in order.
--
--   OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 spindle run city.sp

def model : String = "gpt-3.5-turbo"

def city : String = "Kyoto"

def nonEmpty (s : String) : Bool = trim s != ""

def places : List String =
  map trim (filter nonEmpty (streamLines (llmStream model ("List 10 places to visit in " ++ city ++ ", one per line, names only."))))

def excursion (place : String) : String =
  concatStrings (llmStream model ("Plan a half-day excursion to " ++ place ++ " in " ++ city ++ " in three steps."))

def section (place : String) : String = "## " ++ place ++ "\n" ++ excursion place ++ "\n"

def main : String = concatStrings (map section places)
