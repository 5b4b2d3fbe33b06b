#!/usr/bin/env bash
# Issue 27's two measures of the network executor, against the mock server:
#   1. 200 model calls under `--llm-rpm 600`: the ideal is 20 s (10 a second);
#   2. 10,000 model calls in flight at once: wall time and peak memory (RSS).
#
#   bash benches/llm/limits.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
spindle=${SPINDLE:-$repo/target/release/spindle}
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

start_mock() { # scale -> port
  python3 "$here/mock_server.py" --port 0 --seed 1 --workload sot --scale "$1" > "$work/port.$1" 2>/dev/null &
  for _ in $(seq 100); do [ -s "$work/port.$1" ] && break; sleep 0.05; done
  head -1 "$work/port.$1"
}

port=$(start_mock 0.1)
cat > "$work/rpm.sp" <<'SP'
def main : Int = sum (map (\i -> strLength (llm "gpt-4o-mini" ("Point " ++ showInt i ++ ": expand it"))) (range 0 200))
SP
t0=$(date +%s.%N)
OPENAI_BASE_URL=http://127.0.0.1:$port/v1 "$spindle" run --progress none --store "$work/s1" --llm-rpm 600 "$work/rpm.sp" > /dev/null
t1=$(date +%s.%N)
echo "200 calls at --llm-rpm 600: $(python3 -c "print(f'{$t1-$t0:.2f}')") s (ideal 20 s)"

port=$(start_mock 1.0)
cat > "$work/many.sp" <<'SP'
def main : Int = sum (map (\i -> strLength (llm "gpt-4o-mini" ("Point " ++ showInt i ++ ": expand it"))) (range 0 10000))
SP
OPENAI_BASE_URL=http://127.0.0.1:$port/v1 /usr/bin/time -f "%e %M" -o "$work/time" \
  "$spindle" run --progress none --stats --store "$work/s2" "$work/many.sp" > /dev/null 2> "$work/stats"
read -r wall rss < "$work/time"
peak=$(grep externals_peak_in_flight "$work/stats" | cut -d' ' -f2)
echo "10,000 calls: $wall s, $peak in flight at once, peak RSS $((rss / 1024)) MB"
