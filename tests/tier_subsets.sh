#!/usr/bin/env bash
# The tier matrix over every subset (issue 25): each of the 2^7 = 128 sets of the
# machine's faster paths switched off (SPINDLE_TIERS_OFF, machine::tiers) must print
# the same output, with the same exit status, as all tiers on, for every example and
# library program. `tests/machine/tiers.rs` (in CI) compares all on, each tier off
# alone and all off, with the heap audited; this script covers the other subsets. It
# runs each program with `--sequential --progress none` in a scratch folder with a
# store of its own (some programs write files), and leaves out programs that take
# longer than 10 s with all tiers on. It found the trimmer's use of freed thunks
# (`tests/examples/library/trim_freed_thunks.sp`).
# Usage, from the project root:  bash tests/tier_subsets.sh [path/to/spindle] [jobs]
# (MASKS="3 5 96" limits the run to those subsets: bit i switches off tier i.)
set -euo pipefail
bin=$(realpath "${1:-target/release/spindle}")
jobs=${2:-2}
[ -x "$bin" ] || { echo "no spindle binary at $bin (cargo build --release first)" >&2; exit 2; }
names=(at_hand numeric loops fusion native inline trim)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One run: FILE and the tiers to switch off; prints the exit status, then the output.
run_one() { # file off
  local d; d=$(mktemp -d -p "$work")
  (cd "$d" && SPINDLE_TIERS_OFF="$2" timeout 60 "$bin" run --sequential --progress none --store "$d/.spindle" "$1" 2>&1; echo "exit $?")
  rm -rf "$d"
}
export -f run_one; export bin work

files=()
for f in tests/examples/{spec,bench,own,library}/*.sp examples/*.sp; do
  f=$(realpath "$f")
  start=$(date +%s%N)
  ref=$(run_one "$f" "")
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  case $ref in *"exit 124") continue ;; esac
  [ "$ms" -le 10000 ] || continue
  printf '%s' "$ref" > "$work/$(echo "$f" | md5sum | cut -c1-16).ref"
  files+=("$f")
done
echo "${#files[@]} programs"

fail=0
for mask in ${MASKS:-$(seq 1 127)}; do
  off=()
  for i in "${!names[@]}"; do (( mask >> i & 1 )) && off+=("${names[$i]}"); done
  offs=$(IFS=,; echo "${off[*]}")
  bad=$(printf '%s\n' "${files[@]}" | xargs -P "$jobs" -I{} bash -c '
    f={}; key=$(echo "$f" | md5sum | cut -c1-16)
    got=$(run_one "$f" "'"$offs"'")
    [ "$got" = "$(cat "$work/$key.ref")" ] || echo "$f"')
  if [ -n "$bad" ]; then
    fail=1
    echo "tiers off: $offs: differs on:"; echo "$bad" | sed 's/^/  /'
  fi
done
[ $fail = 0 ] && echo "every subset prints what all tiers on print"
exit $fail
