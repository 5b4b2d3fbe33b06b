#!/usr/bin/env bash
# CPU benchmarks that nobody tuned for (issue 30): each NAME.sp here against its Python
# twin NAME.py, which prints exactly the same output.
#
# Usage, from anywhere:
#   benches/cpu/run.sh [SPINDLE_BIN] [PROGRAM...]
#   REPEAT=1 benches/cpu/run.sh target/release/spindle fannkuch nbody
#
# SPINDLE_BIN defaults to $CARGO_TARGET_DIR/release/spindle, else target/release/spindle.
# PROGRAM names (without .sp) pick a subset; by default every NAME.sp with a NAME.py.
# Environment: REPEAT (runs of each side, default 5), TIMEOUT (seconds per run,
# default 600), PYTHON (default python3).
#
# Each repetition runs the Spindle program, then its twin (interleaved), under
# `/usr/bin/time -f '%U %S %M'`: CPU time is user + sys, memory the peak RSS. The table
# gives the medians and Spindle's ratio to Python (above 1 means Spindle needs more).
# A program whose run fails (non-zero exit, timeout) or whose output differs from its
# twin's is reported as FAIL and not timed further. The summary gives the geometric
# means and the worst ratios over the programs that passed, and the count that failed.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repeat=${REPEAT:-5}
timeout_s=${TIMEOUT:-600}
python=${PYTHON:-python3}

spindle=${1:-}
if [ -z "$spindle" ]; then
  spindle=${CARGO_TARGET_DIR:-target}/release/spindle
else
  shift
fi
case $spindle in
  */*) ;;
  *) [ -x "$spindle" ] || spindle=$(command -v "$spindle" || echo "$spindle") ;;
esac
[ -x "$spindle" ] || { echo "no spindle binary at $spindle (cargo build --release first)" >&2; exit 2; }
spindle=$(cd "$(dirname "$spindle")" && pwd)/$(basename "$spindle")
command -v "$python" >/dev/null || { echo "missing $python" >&2; exit 2; }
case $repeat in
  '' | *[!0-9]* | 0) echo "REPEAT must be a positive whole number, not '$repeat'" >&2; exit 2 ;;
esac

if [ ! -x /usr/bin/time ]; then
  echo "/usr/bin/time is missing (the GNU time package); installing it: apt-get install -y time" >&2
  if ! { apt-get install -y time >/dev/null 2>&1 || { apt-get update >/dev/null 2>&1 && apt-get install -y time >/dev/null 2>&1; }; }; then
    echo "could not install GNU time: run 'apt-get install -y time' (as root) and try again" >&2
    exit 2
  fi
fi

if [ $# -gt 0 ]; then
  programs=("$@")
else
  programs=()
  for sp in "$here"/*.sp; do
    name=$(basename "$sp" .sp)
    [ -f "$here/$name.py" ] && programs+=("$name")
  done
fi
for name in "${programs[@]}"; do
  name=${name%.sp}
  [ -f "$here/$name.sp" ] && [ -f "$here/$name.py" ] || { echo "no benchmark $name ($here/$name.sp and $name.py)" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "spindle: $spindle; python: $($python --version 2>&1); $repeat run(s) each, interleaved" >&2

# measure OUT_FILE COMMAND... : runs it under GNU time; prints "user sys maxrss_kb" and
# returns the command's status (124 for a timeout).
measure() {
  local out=$1
  shift
  /usr/bin/time -o "$work/time" -f '%U %S %M' timeout "$timeout_s" "$@" >"$out" 2>"$work/stderr"
  local status=$?
  tail -n 1 "$work/time"
  return $status
}

results=$work/results
: >"$results"
for name in "${programs[@]}"; do
  name=${name%.sp}
  echo "  $name ..." >&2
  failed=""
  for ((r = 1; r <= repeat; r++)); do
    s=$(cd "$here" && measure "$work/sp.out" "$spindle" run "$name.sp" --store "$work/store")
    status=$?
    if [ $status = 124 ]; then
      failed="spindle run timed out after ${timeout_s} s"
      break
    elif [ $status != 0 ]; then
      failed="spindle run exited $status: $(grep -m1 -i -E 'error|out of memory|panick' "$work/stderr" | head -c 300)"
      break
    fi
    p=$(cd "$here" && measure "$work/py.out" "$python" "$name.py")
    status=$?
    if [ $status = 124 ]; then
      failed="$python timed out after ${timeout_s} s"
      break
    elif [ $status != 0 ]; then
      failed="$python exited $status: $(tail -n 1 "$work/stderr" | head -c 300)"
      break
    fi
    if ! cmp -s "$work/sp.out" "$work/py.out"; then
      failed="outputs differ: $(diff "$work/sp.out" "$work/py.out" | head -n 3 | tr '\n' ' ' | head -c 200)"
      break
    fi
    echo "$name $s $p" >>"$results"
  done
  if [ -n "$failed" ]; then
    sed -i "/^$name /d" "$results"
    echo "$name FAIL $failed" >>"$results"
  fi
done

"$python" - "$results" <<'EOF'
import math
import statistics
import sys

runs, failures, order = {}, {}, []
for line in open(sys.argv[1]):
    parts = line.split()
    name = parts[0]
    if name not in order:
        order.append(name)
    if parts[1] == "FAIL":
        failures[name] = " ".join(parts[2:])
        continue
    su, ss, sm, pu, ps, pm = map(float, parts[1:7])
    runs.setdefault(name, []).append((su + ss, sm / 1024, pu + ps, pm / 1024))

header = f"{'program':<12} {'spindle s':>10} {'python s':>10} {'cpu x':>8} {'spindle MB':>11} {'python MB':>10} {'mem x':>8}"
print(header)
print("-" * len(header))
cpu_ratios, mem_ratios = {}, {}
for name in order:
    if name in failures:
        print(f"{name:<12} FAIL: {failures[name]}")
        continue
    rs = runs[name]
    s_cpu = statistics.median(r[0] for r in rs)
    s_mem = statistics.median(r[1] for r in rs)
    p_cpu = statistics.median(r[2] for r in rs)
    p_mem = statistics.median(r[3] for r in rs)
    cpu = s_cpu / max(p_cpu, 0.01)
    mem = s_mem / max(p_mem, 0.01)
    cpu_ratios[name], mem_ratios[name] = cpu, mem
    print(f"{name:<12} {s_cpu:>10.2f} {p_cpu:>10.2f} {cpu:>8.2f} {s_mem:>11.1f} {p_mem:>10.1f} {mem:>8.2f}")
print("-" * len(header))


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


if cpu_ratios:
    worst_cpu = max(cpu_ratios, key=cpu_ratios.get)
    worst_mem = max(mem_ratios, key=mem_ratios.get)
    print(f"passed {len(cpu_ratios)}, failed {len(failures)}")
    print(f"CPU time: geometric mean {geomean(cpu_ratios.values()):.2f}x, worst {cpu_ratios[worst_cpu]:.2f}x ({worst_cpu})")
    print(f"peak RSS: geometric mean {geomean(mem_ratios.values()):.2f}x, worst {mem_ratios[worst_mem]:.2f}x ({worst_mem})")
else:
    print(f"passed 0, failed {len(failures)}")
EOF
