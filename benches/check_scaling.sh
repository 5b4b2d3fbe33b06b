#!/usr/bin/env bash
# Checking time against the size of lambdas and applications (issue 30): for each N,
# `spindle check` of
#   unannotated  (\x0 ... xN -> x1) 0 1 ... N        (parameter types unknown)
#   annotated    (\(x0 : Int) ... (xN : Int) -> x1) 0 1 ... N
#   signature    def f : Int -> ... -> Int = \x0 ... xN -> x1; f 0 1 ... N
#   defs         N definitions, each calling the one before
# with wall seconds and peak memory (/usr/bin/time), and the ratio of each time to
# the time at the previous N: linear growth doubles it (2.0), a square quadruples it.
#
#   bash benches/check_scaling.sh [SPINDLE] [N ...]      (default N: 1000 2000 4000 8000 16000)
set -euo pipefail
spindle=$(realpath "${1:-target/release/spindle}")
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 2000 4000 8000 16000)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
gen() { # KIND N FILE
  python3 - "$1" "$2" "$3" <<'PY'
import sys
kind, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
nums = " ".join(str(i) for i in range(n))
plain = " ".join(f"x{i}" for i in range(n))
typed = " ".join(f"(x{i} : Int)" for i in range(n))
with open(path, "w") as f:
    if kind == "unannotated":
        f.write(f"def main : Int = (\\{plain} -> x1) {nums}\n")
    elif kind == "annotated":
        f.write(f"def main : Int = (\\{typed} -> x1) {nums}\n")
    elif kind == "signature":
        arrows = " -> ".join(["Int"] * (n + 1))
        f.write(f"def f : {arrows} = \\{plain} -> x1\ndef main : Int = f {nums}\n")
    else:
        f.write("def d0 : Int = 0\n")
        for i in range(1, n):
            f.write(f"def d{i} : Int = d{i-1} + 1\n")
        f.write(f"def main : Int = d{n-1}\n")
PY
}
printf '%-12s %8s %9s %9s %7s\n' kind N seconds peak_MB ratio
for kind in unannotated annotated signature defs; do
  prev=""
  for n in "${sizes[@]}"; do
    gen "$kind" "$n" "$dir/t.sp"
    /usr/bin/time -f '%e %M' -o "$dir/time.txt" "$spindle" check "$dir/t.sp" > "$dir/out.txt" 2>&1 \
      || { echo "$kind N=$n does not check:" >&2; head -5 "$dir/out.txt" >&2; exit 1; }
    read -r t m < "$dir/time.txt"
    awk -v k="$kind" -v n="$n" -v t="$t" -v m="$m" -v p="$prev" 'BEGIN {
      r = (p == "" || p == 0) ? "-" : sprintf("%.2f", t / p)
      printf "%-12s %8d %9.2f %9.1f %7s\n", k, n, t, m / 1024, r
    }'
    prev=$t
  done
done
