-- Nested constructor patterns.
def classify (m : Maybe (Either Int (Maybe String))) : String =
  match m with
  | Nothing -> "none"
  | Just (Left 0) -> "zero"
  | Just (Left n) -> showInt n
  | Just (Right Nothing) -> "empty"
  | Just (Right (Just s)) -> s

def main = map classify [Nothing, Just (Left 0), Just (Left 5), Just (Right Nothing), Just (Right (Just "s"))]
