-- Sorting records: generate employees, sort them by several keys (stable sorts, ties
-- by name), and report ranks, medians and the top earner of each department.

record Employee = { id : Int, name : String, dept : String, salary : Int, age : Int }

def employeeCount : Int = 80000

def syllables : List String = ["ka", "lo", "mi", "ra", "zu", "te", "no", "shi", "an", "vo"]

def departments : List String = ["engineering", "sales", "support", "finance", "legal", "research"]

def nextSeed (s : Int) : Int = (s * 1103515245 + 12345) % 2147483648

def pick (xs : List String) (i : Int) : String = fromMaybe "" (nth (i % length xs) xs)

def employee (i : Int) (seed : Int) : Employee =
  { id = i
  , name = concatStrings (map (\d -> pick syllables (seed / d)) [10, 100, 1000])
  , dept = pick departments (seed / 4096)
  , salary = 30000 + seed / 128 % 90000
  , age = 20 + seed / 65536 % 45
  }

def describe (p : Employee) : String =
  p.name ++ " (" ++ p.dept ++ ", " ++ showInt p.age ++ "): " ++ showInt p.salary

-- The first employee of each run of equal departments.
def firstOfEach (ps : List Employee) : List Employee =
  match ps with
  | [] -> []
  | p :: rest -> p :: firstOfEach (dropWhile (\q -> q.dept == p.dept) rest)

def distinct (sorted : List String) : Int =
  match sorted with
  | [] -> 0
  | x :: rest -> 1 + length (filter (\ab -> fst ab != snd ab) (zip sorted rest))

def main : String =
  join "\n"
    ([ "top: " ++ join "; " (map describe (take 3 bySalary))
     , "bottom: " ++ join "; " (map describe (drop (length bySalary - 3) bySalary))
     , "median salary: " ++ showInt (fromMaybe 0 (nth (length salaries / 2) salaries))
     ] ++ map (\p -> "  " ++ p.dept ++ ": " ++ describe p) (firstOfEach byDept)
       ++ [ "names: first " ++ fromMaybe "" (head names) ++ ", last " ++ fromMaybe "" (last names) ++ ", distinct " ++ showInt (distinct names)
          , "youngest ids: " ++ show (map (\p -> p.id) (take 6 byAge))
          ])
  where
    people = zipWith employee (range 0 employeeCount) (drop 1 (iterate nextSeed 17))
    bySalary = sortOn (\p -> (0 - p.salary, p.name)) people
    salaries = sort (map (\p -> p.salary) people)
    byDept = sortOn (\p -> (p.dept, 0 - p.salary)) people
    names = sortOn id (map (\p -> p.name) people)
    byAge = sortOn (\p -> p.age) people
