#!/usr/bin/env bash
# Parallel however the program is phrased (issue 26): generates the phrasing
# generator's programs for development seeds (0-299 by default; seeds 1000-2999 are
# held out: never run them here), runs each with `delay` calls and with every call a
# process (`effects.py`), and prints the generator's summary line for both.
#
#   bash benches/phrasing.sh [SPINDLE] [SEEDS]
#
# Uses `run.py --jobs 1 --repeat-slow 2 --no-seq` (the fastest run of a slow program
# counts), as the issue's targets are stated.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
spindle=${1:-$here/target/release/spindle}
seeds=${2:-0-299}
phrasing=${PHRASING_DIR:-$here/../shared/phrasing}
[ -x "$spindle" ] || { echo "no spindle at $spindle (cargo build --release)" >&2; exit 2; }
[ -d "$phrasing" ] || { echo "no phrasing generator at $phrasing (set PHRASING_DIR)" >&2; exit 2; }
case "$seeds" in
  *[!0-9-]*) echo "seeds: a range like 0-299" >&2; exit 2 ;;
esac
hi=${seeds#*-}
if [ "$hi" -ge 1000 ]; then
  echo "seeds 1000-2999 are held out for independent checks: use 0-999" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$phrasing/gen.py" --seeds "$seeds" --out "$work/delay" >/dev/null
python3 "$phrasing/effects.py" "$work/delay" "$work/shell" >/dev/null
for variant in delay shell; do
  line=$(python3 "$phrasing/run.py" "$work/$variant" --spindle "$spindle" \
    --no-seq --jobs 1 --repeat-slow 2 | tail -1)
  echo "$variant: $line"
done
