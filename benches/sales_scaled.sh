#!/usr/bin/env bash
# The README's sales workflow (examples/sales) scaled up: REGIONS regions of LINES
# lines each, so that a run takes about 10 s here; run with file-access tracing (the
# default) and without (SPINDLE_TRACE=off) side by side (A B A B ...), RUNS times
# each, every run from scratch (no --resume). Prints the medians and their ratio.
#
#   bash benches/sales_scaled.sh [SPINDLE] [REGIONS] [LINES] [RUNS]
set -euo pipefail
spindle=$(realpath "${1:-target/release/spindle}")
regions=${2:-8}
lines=${3:-2500000}
runs=${4:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$root/examples/sales/sales.sp" "$root/examples/sales/check.awk" "$dir/"
# The best-seller pipeline ends in `head -n 1`, which closes its input after one line:
# once `sort`'s output passes a pipe's 64 KB, `sort` dies of SIGPIPE and pipefail fails
# the step (with or without tracing). The copy here reads the rest with `sed -n 1p`.
sed -i 's/head -n 1/sed -n 1p/' "$dir/sales.sp"
mkdir "$dir/data"
for r in $(seq "$regions"); do
  awk -v n="$lines" -v r="$r" 'BEGIN {
    print "product,quantity,price"
    split("widget gadget gizmo doohickey", p, " ")
    for (i = 0; i < n; i++) printf "%s,%d,%.2f\n", p[(i * 7 + r) % 4 + 1], (i * 13 + r) % 50 + 1, ((i * 31 + r) % 2000) / 100 + 0.5
  }' > "$dir/data/region$r.csv"
done
cd "$dir"
now() { date +%s%N; }
traced=() plain=()
for _ in $(seq "$runs"); do
  rm -rf out .spindle
  t=$(now); "$spindle" run --progress none sales.sp -- data out > /dev/null; traced+=($(( $(now) - t )))
  rm -rf out .spindle
  t=$(now); SPINDLE_TRACE=off "$spindle" run --progress none sales.sp -- data out > /dev/null 2>&1; plain+=($(( $(now) - t )))
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
t=$(median "${traced[@]}"); p=$(median "${plain[@]}")
awk -v t="$t" -v p="$p" -v r="$regions" -v l="$lines" -v n="$runs" 'BEGIN {
  printf "sales, %d regions x %d lines, medians of %d: traced %.2f s, untraced %.2f s, traced / untraced %.3f\n", r, l, n, t/1e9, p/1e9, t/p
}'
