-- Skeleton of thought (Ning et al.; PopPy's SoT): one call writes the answer's
-- skeleton (short numbered points), then one call per point expands it, each seeing
-- the whole skeleton; the answer is the points with their expansions, in order.
--
--   OPENAI_BASE_URL=http://127.0.0.1:PORT/v1 spindle run sot.sp

def model : String = "gpt-4o-mini"

def question : String = "What are the most effective strategies for conflict resolution in the workplace?"

def nonEmpty (s : String) : Bool = trim s != ""

def skeletonText : String =
  llm model ("You're an organizer responsible for only giving the skeleton (not the full content) for answering the question. "
    ++ "Provide the skeleton in a list of points (numbered 1., 2., 3., etc.) to answer the question. "
    ++ "Each point should be very short, only 3 to 5 words.\nQuestion: " ++ question ++ "\nSkeleton:")

def points : List String = map trim (filter nonEmpty (lines skeletonText))

def expand (point : String) : String =
  llm model ("You're responsible for continuing the writing of one and only one point in the overall answer to the following question.\n"
    ++ "Question: " ++ question ++ "\nThe skeleton of the answer is\n" ++ skeletonText
    ++ "\nContinue point " ++ point ++ " in 1-2 sentences, and stop.")

def main : String = unlines (map (\p -> p ++ " " ++ trim (expand p)) points)
