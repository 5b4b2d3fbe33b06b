#!/usr/bin/env bash
# The streaming benchmarks of issue 28: OPAL's CityExcursions and TextToSpeech shapes
# against a mock OpenAI-compatible server that streams its replies (benches/llm/
# mock_server.py), a log-following pipeline, and a 1 GB stream through a filter plus a
# streamed `main` printing 1M lines.
#
#   bash benches/streams/run.sh [--quick] [WORKLOAD...]     (city tts logs big; default: all)
#
# For city, tts and logs, REPS rounds (in rotating order) of
#   spindle run W.sp                 (a fresh working directory and result store)
#   spindle run --sequential W.sp
#   python3 W.py                     (hand-written asyncio with streaming; aiohttp)
#   python3 W_seq.py                 (blocking, one call after another: OPAL's baseline)
#   (tts only) spindle run tts_nested.sp   (the same program phrased without ++ of streams)
#   (tts only) spindle run --speculate-paid tts.sp
# each under timing.py (time of the first byte of standard output, of the last, and of
# the exit); every output must equal the one ideal.py derives from the mock's plans (or
# from the log). The ideal times come from ideal.py (see its header), the tools' own
# times and the log producer's time are measured here first.
# For big: REPS rounds of spindle and CPython on the same filter over a generated file
# of BIG_MB MB (1000; --quick: 100) under BIG_DIR (/tmp/spindle-streams; generated if
# missing, never in the repository), and a streamed `main` printing 1M lines, each under
# /usr/bin/time -f '%e %M' (wall, peak RSS).
#
# Prints markdown tables (medians) and writes them, after a README section, to
# benches/streams/results.md.
#
# Environment:
#   SPINDLE   the binary (default: target/release/spindle of this repository)
#   REPS      rounds (default 3; --quick: 1)
#   BIG_REPS  rounds of big (default 5, as its peak RSS varies from run to run; --quick: 1)
#   SEED      the mock's seed (default 1)
#   SCALE     the mock's latency scale (default 0.4: model calls of 1.8 s on average)
#   SHARE     the mock's --first-chunk-share (default 0.1: the first piece after a tenth
#             of a call's latency, about a real model's time to first token)
#   BIG_DIR   where the big files go (default /tmp/spindle-streams)
#   BIG_MB    the filtered file's size in MB (default 1000; --quick: 100)
#   LOG_LINES lines of the log (default 1000000; --quick: 200000)
#   RESULTS   where to write the tables (default benches/streams/results.md)
#   KEEP      keep the work directory (outputs, logs, the mock's request logs)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
quick=0
args=()
for a in "$@"; do
  case $a in
    --quick) quick=1 ;;
    -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
    *) args+=("$a") ;;
  esac
done
spindle=${SPINDLE:-$repo/target/release/spindle}
if [ "$quick" = 1 ]; then reps=${REPS:-1}; big_reps=${BIG_REPS:-1}; big_mb=${BIG_MB:-100}; log_lines=${LOG_LINES:-200000}
else reps=${REPS:-3}; big_reps=${BIG_REPS:-5}; big_mb=${BIG_MB:-1000}; log_lines=${LOG_LINES:-1000000}; fi
seed=${SEED:-1}
scale=${SCALE:-0.4}
share=${SHARE:-0.1}
big_dir=${BIG_DIR:-/tmp/spindle-streams}
results=${RESULTS:-$here/results.md}
all_workloads=(city tts logs big)
if [ ${#args[@]} -gt 0 ]; then workloads=("${args[@]}"); else workloads=("${all_workloads[@]}"); fi
for w in "${workloads[@]}"; do
  case $w in city|tts|logs|big) ;; *) echo "no workload $w (city tts logs big)" >&2; exit 2 ;; esac
done

python3 -c 'import aiohttp' 2>/dev/null || pip install --quiet aiohttp >&2
[ -x "$spindle" ] || { echo "no spindle at $spindle (set SPINDLE)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (GNU time)" >&2; exit 2; }

work=$(mktemp -d)
# A copy of the binary, so that a rebuild during the run changes nothing measured.
built=$(stat -c %y "$spindle" | cut -d. -f1)
cp "$spindle" "$work/spindle"
spindle=$work/spindle
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if [ -n "${KEEP:-}" ]; then echo "work directory: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
unset OPENAI_API_KEY  # the mock needs none; no key goes anywhere
export PYTHONDONTWRITEBYTECODE=1
timing=(python3 "$here/timing.py")
median() { python3 -c 'import statistics, sys; print(statistics.median(float(x) for x in sys.argv[1:]))' "$@"; }
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
echo "# binary: ${SPINDLE:-$repo/target/release/spindle} (built $built, copied); work: $work" >&2
echo "{\"reps\": $reps, \"seed\": $seed, \"scale\": $scale, \"share\": $share, \"big_mb\": $big_mb, \"big_reps\": $big_reps, \"log_lines\": $log_lines, \"quick\": $quick, \"built\": \"$built\"}" >"$work/config.json"

# Start-up: a trivial Spindle program, and Python with asyncio and aiohttp imported.
printf 'def main : String = "ok"\n' >"$work/trivial.sp"
su_sp=(); su_py=()
for i in 1 2 3 4 5; do
  "${timing[@]}" --json "$work/su.json" -- "$spindle" run --store "$work/su.store" --progress none "$work/trivial.sp" >/dev/null
  su_sp+=("$(field "$work/su.json" end)")
  "${timing[@]}" --json "$work/su.json" -- python3 -c 'import asyncio, aiohttp' >/dev/null
  su_py+=("$(field "$work/su.json" end)")
done
echo "{\"spindle\": $(median "${su_sp[@]}"), \"python_aiohttp\": $(median "${su_py[@]}")}" >"$work/startup.json"

# The tools' own time (a stand-in's sleep plus starting `sh`): the median of 5.
tool_time() {
  local ts=() i
  for i in 1 2 3 4 5; do
    "${timing[@]}" --json "$work/tool.json" -- sh -c "$1" tool "$2" >/dev/null
    ts+=("$(field "$work/tool.json" end)")
  done
  median "${ts[@]}"
}
tts_cmd="sleep 0.2; printf 'audio: %s\\n' \"\$1\""
log_cmd="sleep 0.1; printf 'ticket: %s\\n' \"\$1\""

: >"$work/runs.jsonl"
record() {  # workload variant round timing.json expected-file out-file
  local ok=0
  if [ "$(field "$4" rc)" = 0 ] && cmp -s "$6" "$5"; then ok=1; else
    echo "$1/$2 round $3: exit $(field "$4" rc), output differs from the expected (${KEEP:+$6}${KEEP:-KEEP=1 keeps it})" >&2
    head -5 "$6.err" >&2 || true
  fi
  python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); r.update(w=sys.argv[2], v=sys.argv[3], r=int(sys.argv[4]), ok=sys.argv[5] == "1"); print(json.dumps(r))' \
    "$4" "$1" "$2" "$3" "$ok" >>"$work/runs.jsonl"
}

run_variants() {  # workload expected variant...
  local w=$1 expected=$2; shift 2
  local variants=("$@") n=$# r k v d out
  for r in $(seq 1 "$reps"); do
    for k in $(seq 0 $((n - 1))); do
      v=${variants[$(((k + r - 1) % n))]}
      d=$(mktemp -d "$work/run.XXXXXX")
      out="$work/$w.$v.$r.out"
      local cmd=()
      case $v in
        spindle) cmd=("$spindle" run --store "$d/store" --progress none --trace "$work/$w.$v.$r.trace" "$here/$w.sp") ;;
        seq) cmd=("$spindle" run --sequential --store "$d/store" --progress none "$here/$w.sp") ;;
        nested) cmd=("$spindle" run --store "$d/store" --progress none "$here/${w}_nested.sp") ;;
        spec) cmd=("$spindle" run --speculate-paid --store "$d/store" --progress none "$here/$w.sp") ;;
        py) cmd=(python3 "$here/$w.py") ;;
        pyseq) cmd=(python3 "$here/${w}_seq.py") ;;
      esac
      if [ "$w" = logs ]; then cmd+=("$log_file"); fi
      "${timing[@]}" --cwd "$d" --out "$out" --err "$out.err" --json "$work/t.json" -- "${cmd[@]}" >/dev/null || true
      record "$w" "$v" "$r" "$work/t.json" "$expected" "$out"
      rm -rf "$d"
    done
  done
}

for w in "${workloads[@]}"; do
  case $w in
    city|tts)
      extra=()
      if [ "$w" = tts ]; then
        t=$(tool_time "$tts_cmd" "A sentence of a dozen words or so for the stand-in synthesiser.")
        echo "$t" >"$work/tts.tool"
        extra=(--tool "$t")
      fi
      python3 "$here/ideal.py" "$w" --seed "$seed" --scale "$scale" --first-chunk-share "$share" "${extra[@]}" \
        --output "$work/$w.expected" >"$work/$w.ideal.json"
      python3 "$repo/benches/llm/mock_server.py" --port 0 --seed "$seed" --workload city --scale "$scale" \
        --first-chunk-share "$share" --log "$work/$w.log" >"$work/$w.port" 2>"$work/$w.mock.err" &
      server_pid=$!
      for _ in $(seq 1 200); do [ -s "$work/$w.port" ] && break; sleep 0.05; done
      port=$(head -1 "$work/$w.port")
      [ -n "$port" ] || { echo "the mock server did not start:" >&2; cat "$work/$w.mock.err" >&2; exit 1; }
      export OPENAI_BASE_URL="http://127.0.0.1:$port/v1"
      if [ "$w" = tts ]; then run_variants "$w" "$work/$w.expected" spindle seq py pyseq nested spec
      else run_variants "$w" "$work/$w.expected" spindle seq py pyseq; fi
      kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=
      ;;
    logs)
      mkdir -p "$big_dir"
      log_file="$big_dir/big-$log_lines.log"
      [ -s "$log_file" ] || python3 "$here/gen.py" log "$log_file" --lines "$log_lines" --kept 40 >/dev/null
      cat "$log_file" >/dev/null  # in the page cache for every variant alike
      t=$(tool_time "$log_cmd" "$(sed -n '/ ERROR /{p;q}' "$log_file")")
      echo "$t" >"$work/logs.tool"
      pf=(); pe=()
      for i in 1 2 3; do
        "${timing[@]}" --json "$work/p.json" -- bash -o pipefail -c "tail -n +1 $log_file" >/dev/null
        pf+=("$(field "$work/p.json" first)"); pe+=("$(field "$work/p.json" last)")
      done
      python3 "$here/ideal.py" logs --log "$log_file" --producer-first "$(median "${pf[@]}")" \
        --producer-end "$(median "${pe[@]}")" --tool "$t" --jobs 64 --output "$work/logs.expected" >"$work/logs.ideal.json"
      run_variants logs "$work/logs.expected" spindle seq py pyseq
      ;;
    big)
      mkdir -p "$big_dir"
      keep_file="$big_dir/keep-${big_mb}mb.txt"
      lines_file="$big_dir/lines-1m.txt"
      python3 "$here/gen.py" keep "$keep_file" --mb "$big_mb" >&2
      python3 "$here/gen.py" lines "$lines_file" --lines 1000000 >&2
      cat "$keep_file" "$lines_file" >/dev/null  # in the page cache for every variant alike
      expected_count=$(python3 -c 'import sys; print(sum(1 for l in open(sys.argv[1]) if l.startswith("keep")))' "$keep_file")
      { cat "$lines_file"; echo; } >"$work/print.expected"
      echo "{\"bytes\": $(stat -c %s "$keep_file"), \"lines_bytes\": $(stat -c %s "$lines_file"), \"count\": $expected_count}" >"$work/big.json"
      : >"$work/big.tsv"
      bigvariants=(spindle seq python)
      for r in $(seq 1 "$big_reps"); do
        for k in 0 1 2; do
          v=${bigvariants[$(((k + r - 1) % 3))]}
          case $v in
            spindle) cmd=("$spindle" run --store "$work/big.store" --progress none "$here/big.sp" "$keep_file") ;;
            seq) cmd=("$spindle" run --sequential --store "$work/big.store" --progress none "$here/big.sp" "$keep_file") ;;
            python) cmd=(python3 -c 'import sys; print(sum(1 for l in open(sys.argv[1]) if l.startswith("keep")))' "$keep_file") ;;
          esac
          /usr/bin/time -f '%e %M' -o "$work/time.out" "${cmd[@]}" >"$work/big.out" 2>"$work/big.err" || true
          read -r wall rss < <(tail -1 "$work/time.out") || { wall=nan; rss=nan; }
          ok=0; [ "$(cat "$work/big.out")" = "$expected_count" ] && ok=1
          [ $ok = 1 ] || { echo "big/filter/$v round $r: printed $(head -c 100 "$work/big.out"), expected $expected_count" >&2; head -3 "$work/big.err" >&2; }
          echo -e "filter\t$v\t$r\t$wall\t$rss\t$ok" >>"$work/big.tsv"
          case $v in
            spindle) cmd=("$spindle" run --store "$work/big.store" --progress none "$here/print.sp" "$lines_file") ;;
            seq) cmd=("$spindle" run --sequential --store "$work/big.store" --progress none "$here/print.sp" "$lines_file") ;;
            python) cmd=(python3 -c 'import sys; sys.stdout.writelines(open(sys.argv[1])); print()' "$lines_file") ;;
          esac
          set +e
          /usr/bin/time -f '%e %M' -o "$work/time.out" "${cmd[@]}" 2>"$work/big.err" | cmp -s - "$work/print.expected"
          same=$?
          set -e
          read -r wall rss < <(tail -1 "$work/time.out") || { wall=nan; rss=nan; }
          ok=0; [ $same = 0 ] && ok=1
          [ $ok = 1 ] || { echo "big/print/$v round $r: output differs" >&2; head -3 "$work/big.err" >&2; }
          echo -e "print\t$v\t$r\t$wall\t$rss\t$ok" >>"$work/big.tsv"
        done
      done
      ;;
  esac
done

python3 "$here/report.py" "$work" "$results" "$spindle" "${workloads[@]}"
