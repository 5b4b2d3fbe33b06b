-- Text to speech, streamed, phrased without concatenating the streams (the twin of
-- tts.sp for comparison): each reply's sentences are spoken and joined per reply, and
-- the replies' texts are joined; the same output as tts.sp.
--
--   OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 spindle run tts_nested.sp

def model : String = "gpt-3.5-turbo"

def topics : List String =
  ["the Old Market", "the Golden Pavilion", "the Stone Garden", "the Bamboo Path", "the River Bridge", "the Lantern Shrine"]

-- Chunked text regrouped into sentences, lazily (like the prelude's `streamLines`,
-- with "." for the newline): each sentence is available once its full stop has arrived.
def sentencesFrom (acc : String) (xs : List String) : List String =
  match xs with
  | Nil -> if trim acc == "" then Nil else Cons (trim acc) Nil
  | Cons c rest -> sentencePieces acc (split "." c) rest

def sentencePieces (acc : String) (ps : List String) (rest : List String) : List String =
  match ps with
  | Nil -> sentencesFrom acc rest
  | Cons p more ->
      (match more with
       | Nil -> sentencesFrom (acc ++ p) rest
       | Cons _ _ -> Cons (trim (acc ++ p ++ ".")) (sentencePieces "" more rest))

def paragraph (topic : String) : List String =
  sentencesFrom "" (llmStream model ("Describe " ++ topic ++ " in Kyoto in two sentences."))

def tts : String = "sleep 0.2; printf 'audio: %s\\n' \"$1\""

def speak (sentence : String) : String = run "sh" ["-c", tts, "tts", sentence]

def main : String = concatStrings (map (\t -> concatStrings (map speak (paragraph t))) topics)
