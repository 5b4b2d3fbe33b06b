#!/usr/bin/env bash
# --resume at scale (issue 24): N process calls (`run "echo" [i]`) run once, then
# resumed with every record reused. For each N: the first run's and the resumed run's
# wall time and peak memory (/usr/bin/time), their ratios, and the store's size.
#
#   bash benches/resume_scale.sh [SPINDLE] [N ...]        (default N: 1000 10000 100000)
set -euo pipefail
spindle=$(realpath "${1:-target/release/spindle}")
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 10000 100000)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/wf.sp" <<'SP'
def n : Int = fromMaybe 0 (parseInt (fromMaybe "0" (nth 0 args)))
def main : Int = strLength (concatStrings (map (\i -> run "echo" [showInt i]) (range 0 n)))
SP
cd "$dir"
printf '%8s %10s %10s %10s %10s %8s %8s %10s\n' N first_s first_MB resume_s resume_MB time% mem% store_MB
for n in "${sizes[@]}"; do
  rm -rf .spindle
  /usr/bin/time -f '%e %M' -o first.txt "$spindle" run --progress none wf.sp -- "$n" > first.out
  /usr/bin/time -f '%e %M' -o resume.txt "$spindle" run --resume --progress none wf.sp -- "$n" > resume.out
  cmp -s first.out resume.out || { echo "resumed output differs for N=$n" >&2; exit 1; }
  read -r ft fm < first.txt
  read -r rt rm < resume.txt
  store=$(du -sk .spindle | cut -f1)
  awk -v n="$n" -v ft="$ft" -v fm="$fm" -v rt="$rt" -v rm="$rm" -v s="$store" 'BEGIN {
    printf "%8d %10.2f %10.1f %10.2f %10.1f %7.1f%% %7.1f%% %10.1f\n", n, ft, fm/1024, rt, rm/1024, 100*rt/ft, 100*rm/fm, s/1024
  }'
done
