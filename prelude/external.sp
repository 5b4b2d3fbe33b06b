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
