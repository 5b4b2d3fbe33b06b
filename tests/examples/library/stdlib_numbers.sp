-- Numbers (docs/stdlib.md): `^`, `div`, `mod`, `abs`, `showFixed`, `sumFloat`.

def main =
  [ show (2 ^ 10, 2 ^ 3 ^ 2, 3 * 2 ^ 2, (0 - 3) ^ 3, 7 ^ 0, 2.0 ^ 3, 1.5 ^ 2, 10.0 ^ (0 - 1))
  , show (div 7 2, div (0 - 7) 2, div 7 (0 - 2), div (0 - 7) (0 - 2))
  , show (mod 7 2, mod (0 - 7) 2, mod 7 (0 - 2), mod (0 - 7) (0 - 2), mod 6 3)
  , show ((0 - 7) / 2, (0 - 7) % 2)
  , show (abs (0 - 3), abs 4, abs (0.0 - 2.5), abs 0.0)
  , showFixed 2 3.14159 ++ " " ++ showFixed 0 2.5 ++ " " ++ showFixed 3 (0.0 - 1.0005) ++ " " ++ showFixed 1 0.05
  , show (sumFloat [0.5, 0.25, 0.125], sumFloat [])
  , padLeft 6 (showFixed 1 3.14159) ++ "|" ++ padRight 6 "ab" ++ "|" ++ padLeft 1 "long"
  ]
