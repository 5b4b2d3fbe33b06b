-- N-body: the Jovian planets and the Sun, advanced with a simple symplectic integrator;
-- the system's energy before and after.

record Body = { x : Float, y : Float, z : Float, vx : Float, vy : Float, vz : Float, mass : Float }

def steps : Int = 50000

def dt : Float = 0.01

def pi : Float = 3.141592653589793

def solarMass : Float = 4.0 * pi * pi

def daysPerYear : Float = 365.24

def planet (x : Float) (y : Float) (z : Float) (vx : Float) (vy : Float) (vz : Float) (m : Float) : Body =
  { x = x, y = y, z = z, vx = vx * daysPerYear, vy = vy * daysPerYear, vz = vz * daysPerYear, mass = m * solarMass }

def planets : List Body =
  [ { x = 0.0, y = 0.0, z = 0.0, vx = 0.0, vy = 0.0, vz = 0.0, mass = solarMass }
  , planet 4.84143144246472090e+00 (-1.16032004402742839e+00) (-1.03622044471123109e-01)
      1.66007664274403694e-03 7.69901118419740425e-03 (-6.90460016972063023e-05) 9.54791938424326609e-04
  , planet 8.34336671824457987e+00 4.12479856412430479e+00 (-4.03523417114321381e-01)
      (-2.76742510726862411e-03) 4.99852801234917238e-03 2.30417297573763929e-05 2.85885980666130812e-04
  , planet 1.28943695621391310e+01 (-1.51111514016986312e+01) (-2.23307578892655734e-01)
      2.96460137564761618e-03 2.37847173959480950e-03 (-2.96589568540237556e-05) 4.36624404335156298e-05
  , planet 1.53796971148509165e+01 (-2.59193146099879641e+01) 1.79258772950371181e-01
      2.68067772490389322e-03 1.62824170038242295e-03 (-9.51592254519715870e-05) 5.15138902046611451e-05
  ]

def offsetMomentum (bodies : List Body) : List Body =
  match bodies with
  | sun :: rest -> { sun | vx = 0.0 - px / solarMass, vy = 0.0 - py / solarMass, vz = 0.0 - pz / solarMass } :: rest
  | [] -> []
  where
    px = foldl (\acc b -> acc + b.vx * b.mass) 0.0 bodies
    py = foldl (\acc b -> acc + b.vy * b.mass) 0.0 bodies
    pz = foldl (\acc b -> acc + b.vz * b.mass) 0.0 bodies

def distance (b : Body) (o : Body) : Float =
  sqrt (dx * dx + dy * dy + dz * dz)
  where
    dx = b.x - o.x
    dy = b.y - o.y
    dz = b.z - o.z

def energy (bodies : List Body) : Float = go 0.0 bodies
  where
    go e bs =
      match bs with
      | [] -> e
      | b :: rest ->
        let kinetic = e + 0.5 * b.mass * (b.vx * b.vx + b.vy * b.vy + b.vz * b.vz) in
        go (foldl (\acc o -> acc - b.mass * o.mass / distance b o) kinetic rest) rest

-- The pull between two bodies, on both of their velocities.
def interact (b : Body) (o : Body) : Pair Body Body =
  ( { b | vx = b.vx - dx * o.mass * mag, vy = b.vy - dy * o.mass * mag, vz = b.vz - dz * o.mass * mag }
  , { o | vx = o.vx + dx * b.mass * mag, vy = o.vy + dy * b.mass * mag, vz = o.vz + dz * b.mass * mag } )
  where
    dx = b.x - o.x
    dy = b.y - o.y
    dz = b.z - o.z
    d2 = dx * dx + dy * dy + dz * dz
    mag = dt / (d2 * sqrt d2)

-- `b` pulled by each of `others` in turn, and the others pulled by `b`.
def pullAll (b : Body) (others : List Body) : Pair Body (List Body) =
  match others with
  | [] -> (b, [])
  | o :: rest ->
    match interact b o with
    | (b1, o1) -> (match pullAll b1 rest with
      | (b2, rest2) -> (b2, o1 :: rest2))

def velocities (bodies : List Body) : List Body =
  match bodies with
  | [] -> []
  | b :: rest ->
    match pullAll b rest with
    | (b1, rest1) -> b1 :: velocities rest1

def move (b : Body) : Body = { b | x = b.x + dt * b.vx, y = b.y + dt * b.vy, z = b.z + dt * b.vz }

def advance (bodies : List Body) : List Body = map move (velocities bodies)

def micro (v : Float) : String = showInt (round (v * 1e6))

def main : String =
  join "\n"
    [ showFloat (energy start)
    , showFloat (energy final)
    , (match nth 1 final with
      | Just j -> "jupiter at " ++ micro j.x ++ " " ++ micro j.y ++ " " ++ micro j.z
      | Nothing -> "no jupiter")
    ]
  where
    start = offsetMomentum planets
    final = fromMaybe [] (nth steps (iterate advance start))
