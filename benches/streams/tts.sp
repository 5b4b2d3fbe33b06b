-- Text to speech, streamed (OPAL §6.1 and Table 1, TextToSpeech): several independent
-- streamed model replies, concatenated, are fed to a text-to-speech tool in a
-- streaming fashion: each reply is cut into sentences as its chunks arrive, and each
-- sentence goes to the tool (a process: `sh -c 'sleep 0.2; printf ...'`, a stand-in
-- for a speech synthesiser) as soon as it is complete; the audio is printed in order.
--
--   OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 spindle run tts.sp

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

def main : String = concatStrings (map speak (concatMap paragraph topics))
