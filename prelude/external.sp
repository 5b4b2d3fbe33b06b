-- The built-in externals (LANGUAGE.md section 7): functions the host implements. The
-- `extern` lines are those of the registry (src/external/registry.rs), in its order and
-- at its types; a test checks that they agree.

-- A finished process (`runResult`): its exit code, standard output and standard error.
data Process = MkProcess Int String String

def exitCode (p : Process) : Int =
  match p with
  | MkProcess c _ _ -> c

def stdout (p : Process) : String =
  match p with
  | MkProcess _ o _ -> o

def stderr (p : Process) : String =
  match p with
  | MkProcess _ _ e -> e

extern run : String -> List String -> String

extern runResult : String -> List String -> String -> Process

extern shell : String -> String

extern readFile : String -> String

extern writeFile : String -> String -> String

extern fileExists : String -> Bool

extern listDir : String -> List String

extern glob : String -> List String

extern getEnv : String -> Maybe String

extern delay : {a : Type} -> Int -> a -> a

-- A message of a conversation with a model (`llmChat`).
data Message = System String | User String | Assistant String

-- A request to a model (`llmChat`): the model, the messages, the temperature, the
-- most tokens to produce, the seed, the stop sequences, whether the reply is JSON, and
-- the sample index. Build it with `request` and the `with...` functions, which take
-- the request last.
data LlmRequest = MkLlmRequest String (List Message) (Maybe Float) (Maybe Int) (Maybe Int) (List String) Bool Int

-- A model's reply (`llmChat`): its text, why it stopped, and the tokens in and out.
data LlmReply = MkLlmReply String String Int Int

-- An HTTP response (`httpRequest`): the status, the headers and the body.
data HttpResponse = MkHttpResponse Int (List (Pair String String)) String

-- A request to `model` with these messages; every other field at the server's default.
def request (model : String) (messages : List Message) : LlmRequest =
  MkLlmRequest model messages Nothing Nothing Nothing Nil False 0

def withTemperature (t : Float) (r : LlmRequest) : LlmRequest =
  match r with
  | MkLlmRequest m ms _ k s st j n -> MkLlmRequest m ms (Just t) k s st j n

def withMaxTokens (k : Int) (r : LlmRequest) : LlmRequest =
  match r with
  | MkLlmRequest m ms t _ s st j n -> MkLlmRequest m ms t (Just k) s st j n

def withSeed (s : Int) (r : LlmRequest) : LlmRequest =
  match r with
  | MkLlmRequest m ms t k _ st j n -> MkLlmRequest m ms t k (Just s) st j n

def withStop (st : List String) (r : LlmRequest) : LlmRequest =
  match r with
  | MkLlmRequest m ms t k s _ j n -> MkLlmRequest m ms t k s st j n

-- The reply must be a JSON object (the server's JSON mode).
def withJson (r : LlmRequest) : LlmRequest =
  match r with
  | MkLlmRequest m ms t k s st _ n -> MkLlmRequest m ms t k s st True n

-- Sample number `n` of the same request: a distinct call on purpose (the same request
-- at the same place is otherwise one call per run).
def sample (n : Int) (r : LlmRequest) : LlmRequest =
  match r with
  | MkLlmRequest m ms t k s st j _ -> MkLlmRequest m ms t k s st j n

def replyText (r : LlmReply) : String =
  match r with
  | MkLlmReply x _ _ _ -> x

def replyFinish (r : LlmReply) : String =
  match r with
  | MkLlmReply _ f _ _ -> f

def replyTokensIn (r : LlmReply) : Int =
  match r with
  | MkLlmReply _ _ i _ -> i

def replyTokensOut (r : LlmReply) : Int =
  match r with
  | MkLlmReply _ _ _ o -> o

def status (r : HttpResponse) : Int =
  match r with
  | MkHttpResponse s _ _ -> s

def headers (r : HttpResponse) : List (Pair String String) =
  match r with
  | MkHttpResponse _ h _ -> h

def body (r : HttpResponse) : String =
  match r with
  | MkHttpResponse _ _ b -> b

-- `llm model prompt`: the reply of `model` to one user message (a `paid` call).
extern llm : String -> String -> String

extern llmChat : LlmRequest -> LlmReply

extern embed : String -> String -> List Float

extern httpGet : String -> String

extern httpRequest : String -> String -> List (Pair String String) -> String -> HttpResponse

-- Streams (issue 28): a process's standard output, or a file, as a lazy list of its
-- lines, each available as soon as it is written.
extern runLines : String -> List String -> List String

extern shellLines : String -> List String

extern readLines : String -> List String

-- `llmStream model prompt`: the reply of `llm model prompt` as its chunks, each
-- available as it arrives (a `paid` call; `streamLines` regroups them into lines).
extern llmStream : String -> String -> List String

-- The rest of a stream not read yet: calling it waits for the stream's next items.
-- Spindle makes these itself; a program has no use for them.
extern prim_streamNext : Int -> List String

def prim_streamRest (h : Int) : List String = prim_streamNext h

-- Chunked text (a model's streamed reply) regrouped into lines, lazily: each line is
-- available once its newline has arrived; text after the last newline is the last line.
def streamLines (xs : List String) : List String = streamLinesFrom "" xs

-- `streamLines` after `acc`, the start of a line whose newline has not arrived yet.
def streamLinesFrom (acc : String) (xs : List String) : List String =
  match xs with
  | Nil -> if strLength acc == 0 then Nil else Cons acc Nil
  | Cons c rest -> streamLinesPieces acc (split "\n" c) rest

-- `streamLines` at the pieces of one chunk between its newlines.
def streamLinesPieces (acc : String) (ps : List String) (rest : List String) : List String =
  match ps with
  | Nil -> streamLinesFrom acc rest
  | Cons p more ->
      (match more with
       | Nil -> streamLinesFrom (acc ++ p) rest
       | Cons _ _ -> Cons (acc ++ p) (streamLinesPieces "" more rest))
