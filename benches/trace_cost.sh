#!/usr/bin/env bash
# The cost of file-access tracing per traced file system call (issue 24): a program
# that makes N `stat` calls (python3), run directly and under `spindle __trace`,
# side by side (A B A B ...), RUNS times; prints the medians and the cost per call,
# (traced - untraced) / N, in microseconds.
#
#   bash benches/trace_cost.sh [SPINDLE] [N] [RUNS]
set -euo pipefail
spindle=${1:-target/release/spindle}
n=${2:-20000}
runs=${3:-10}
report=$(mktemp)
trap 'rm -f "$report"' EXIT
prog="import os
for _ in range($n): os.stat('/tmp')"
now() { date +%s%N; }
plain=() traced=() base_plain=() base_traced=()
for _ in $(seq "$runs"); do
  t=$(now); python3 -c "$prog"; plain+=($(( $(now) - t )))
  t=$(now); "$spindle" __trace "$report" -- python3 -c "$prog"; traced+=($(( $(now) - t )))
  t=$(now); python3 -c "pass"; base_plain+=($(( $(now) - t )))
  t=$(now); "$spindle" __trace "$report" -- python3 -c "pass"; base_traced+=($(( $(now) - t )))
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
p=$(median "${plain[@]}"); t=$(median "${traced[@]}")
bp=$(median "${base_plain[@]}"); bt=$(median "${base_traced[@]}")
awk -v p="$p" -v t="$t" -v bp="$bp" -v bt="$bt" -v n="$n" 'BEGIN {
  printf "python3 with %d stat calls: untraced %.1f ms, traced %.1f ms (medians)\n", n, p/1e6, t/1e6
  printf "python3 with none:           untraced %.1f ms, traced %.1f ms (start of the tracer and python'"'"'s own calls)\n", bp/1e6, bt/1e6
  printf "per traced call: %.1f us traced, %.2f us untraced\n", ((t-bt))/n/1e3, ((p-bp))/n/1e3
}'
