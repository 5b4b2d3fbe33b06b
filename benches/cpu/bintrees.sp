-- Binary trees: allocate many perfect trees, walk them, count their nodes.

data Tree = Leaf | Node Tree Tree

def maxDepth : Int = 14

def minDepth : Int = 4

def make (depth : Int) : Tree =
  if depth == 0 then Leaf else Node (make (depth - 1)) (make (depth - 1))

def check (t : Tree) : Int =
  match t with
  | Leaf -> 1
  | Node l r -> 1 + check l + check r

def pow2 (n : Int) : Int = if n == 0 then 1 else 2 * pow2 (n - 1)

def depthLine (depth : Int) : String =
  showInt iterations ++ " trees of depth " ++ showInt depth ++ " check: " ++ showInt total
  where
    iterations = pow2 (maxDepth - depth + minDepth)
    total = sum (map (\_ -> check (make depth)) (range 0 iterations))

def main : String =
  join "\n" ([stretchLine] ++ map depthLine depths ++ [longLine])
  where
    stretch = maxDepth + 1
    stretchLine = "stretch tree of depth " ++ showInt stretch ++ " check: " ++ showInt (check (make stretch))
    longLived = make maxDepth
    depths = takeWhile (\d -> d <= maxDepth) (iterate (\d -> d + 2) minDepth)
    longLine = "long lived tree of depth " ++ showInt maxDepth ++ " check: " ++ showInt (check longLived)
