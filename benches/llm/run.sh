#!/usr/bin/env bash
# The LLM benchmarks of issue 27: the seeds' five workloads (tree of thoughts,
# fact-check panel, skeleton of thought, multi-agent debate, city excursions), each
# written plainly in Spindle (NAME.sp) and as hand-written Python asyncio (NAME.py),
# run against a mock OpenAI-compatible server (mock_server.py) whose latencies follow
# each paper's description.
#
#   bash benches/llm/run.sh [WORKLOAD...]
#
# For each workload: the exact critical path and sequential sum of latencies
# (critpath.py: the Python twin replayed on a virtual clock with the server's own
# latencies), then, against one mock server started for it, REPS rounds of
#   spindle run NAME.sp                  (fresh working directory and result store)
#   spindle run --sequential NAME.sp     (likewise)
#   spindle run --speculate-paid NAME.sp (likewise; if the binary has the option)
#   python3 NAME.py
# in rotating order; every output must equal the virtual replay's. Prints a markdown
# table (medians) and writes it to benches/llm/results.md.
#
# Environment:
#   SPINDLE    the binary (default: target/release/spindle of this repository)
#   REPS       rounds per workload (default 3)
#   SEED       the mock's seed (default 1)
#   TARGET_CP  each workload's latencies are scaled so its critical path takes this
#              many seconds (default 1.75), unless
#   SCALE      is set: one latency scale for every workload
#   RESULTS    where to write the table (default benches/llm/results.md)
#   KEEP       keep the work directory (logs, outputs) and print its path; then
#              `python3 benches/llm/timeline.py DIR WORKLOAD VARIANT [ROUND]` shows when
#              each request of a run arrived against when the replay started it
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
spindle=${SPINDLE:-$repo/target/release/spindle}
reps=${REPS:-3}
seed=${SEED:-1}
target_cp=${TARGET_CP:-1.75}
results=${RESULTS:-$here/results.md}
all_workloads=(tot factcheck sot debate city)
if [ $# -gt 0 ]; then workloads=("$@"); else workloads=("${all_workloads[@]}"); fi

python3 -c 'import aiohttp' 2>/dev/null || pip install --quiet aiohttp >&2
[ -x "$spindle" ] || { echo "no spindle at $spindle (set SPINDLE)" >&2; exit 2; }

work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if [ -n "${KEEP:-}" ]; then echo "work directory: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
unset OPENAI_API_KEY  # the mock needs none; no key goes anywhere
export PYTHONDONTWRITEBYTECODE=1

# Does this binary have the model externals yet?
printf 'def main : String = llm "m" "hi"\n' >"$work/probe.sp"
if "$spindle" check "$work/probe.sp" >/dev/null 2>&1; then has_llm=1; else has_llm=0
  echo "note: $spindle does not know \`llm\` yet: only the Python side runs" >&2
fi
has_spec=0
if [ "$has_llm" = 1 ] && "$spindle" run --help 2>/dev/null | grep -q -- '--speculate-paid'; then has_spec=1; fi

now() { echo "$EPOCHREALTIME"; }

# Start-up: a trivial program, the median of 7 runs (subtracted from Spindle's wall
# time before comparing it with the critical path).
printf 'def main : String = "ok"\n' >"$work/trivial.sp"
: >"$work/startup.tsv"
for i in 1 2 3 4 5 6 7; do
  d=$(mktemp -d "$work/run.XXXXXX")
  s=$(now); (cd "$d" && "$spindle" run --store "$d/store" --progress none "$work/trivial.sp" >/dev/null); e=$(now)
  echo -e "spindle\t$s\t$e" >>"$work/startup.tsv"
  s=$(now); python3 -c 'import asyncio, aiohttp' ; e=$(now)
  echo -e "python\t$s\t$e" >>"$work/startup.tsv"
done

: >"$work/runs.tsv"
for w in "${workloads[@]}"; do
  [ -f "$here/$w.sp" ] && [ -f "$here/$w.py" ] || { echo "no workload $w" >&2; exit 2; }
  python3 "$here/critpath.py" "$w" --seed "$seed" --json --output "$work/$w.expected" >"$work/$w.cp.json"
  if [ -n "${SCALE:-}" ]; then scale=$SCALE; else
    scale=$(python3 -c "import json,sys; print(float(sys.argv[2]) / json.load(open(sys.argv[1]))['critical_path'])" "$work/$w.cp.json" "$target_cp")
  fi
  echo "$scale" >"$work/$w.scale"
  python3 "$here/mock_server.py" --port 0 --seed "$seed" --workload "$w" --scale "$scale" \
    --log "$work/$w.log" >"$work/$w.port" 2>"$work/$w.mock.err" &
  server_pid=$!
  for _ in $(seq 1 200); do [ -s "$work/$w.port" ] && break; sleep 0.05; done
  port=$(head -1 "$work/$w.port")
  [ -n "$port" ] || { echo "the mock server did not start:" >&2; cat "$work/$w.mock.err" >&2; exit 1; }
  export OPENAI_BASE_URL="http://127.0.0.1:$port/v1"

  variants=(py)
  [ "$has_llm" = 1 ] && variants=(spindle seq py)
  [ "$has_spec" = 1 ] && variants=(spindle seq py spec)
  n=${#variants[@]}
  for r in $(seq 1 "$reps"); do
    for k in $(seq 0 $((n - 1))); do
      v=${variants[$(((k + r - 1) % n))]}
      d=$(mktemp -d "$work/run.XXXXXX")
      out="$work/$w.$v.$r.out"
      set +e
      s=$(now)
      case $v in
        spindle) (cd "$d" && "$spindle" run --store "$d/store" --progress none "$here/$w.sp" >"$out" 2>"$out.err") ;;
        seq) (cd "$d" && "$spindle" run --sequential --store "$d/store" --progress none "$here/$w.sp" >"$out" 2>"$out.err") ;;
        spec) (cd "$d" && "$spindle" run --speculate-paid --store "$d/store" --progress none "$here/$w.sp" >"$out" 2>"$out.err") ;;
        py) (cd "$d" && python3 "$here/$w.py" >"$out" 2>"$out.err") ;;
      esac
      rc=$?
      e=$(now)
      set -e
      if [ $rc -eq 0 ] && cmp -s "$out" "$work/$w.expected"; then same=1; else same=0
        echo "$w/$v round $r: exit $rc, output differs from the replay's (see ${KEEP:+$out}${KEEP:-KEEP=1})" >&2
        head -5 "$out.err" >&2 || true
      fi
      echo -e "$w\t$v\t$r\t$s\t$e\t$rc\t$same" >>"$work/runs.tsv"
      rm -rf "$d"
    done
  done
  kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; server_pid=
done

python3 - "$work" "$results" "$seed" "$reps" "$spindle" "${workloads[@]}" <<'EOF'
import json, os, statistics, sys, platform, subprocess, time

work, results, seed, reps, spindle = sys.argv[1:6]
workloads = sys.argv[6:]
med = statistics.median
VARIANTS = ("spindle", "seq", "spec", "py")

PAPER = {  # speedups over sequential the papers report (running time)
    "tot": ("6.2 OPAL, 4.8 Epic, 6.1 PopPy", 6.2),
    "factcheck": ("4.3 OPAL, 3.2 Epic", 4.3),
    "sot": ("- (PopPy: Fig. 5 only)", None),
    "debate": ("- (PopPy DAE: Fig. 5 only)", None),
    "city": ("5.5 OPAL (streamed)", 5.5),
}

startup = {"spindle": [], "python": []}
for line in open(os.path.join(work, "startup.tsv")):
    k, s, e = line.split("\t")
    startup[k].append(float(e) - float(s))
su_sp, su_py = med(startup["spindle"]), med(startup["python"])

runs = {}
for line in open(os.path.join(work, "runs.tsv")):
    w, v, r, s, e, rc, same = line.rstrip("\n").split("\t")
    runs.setdefault((w, v), []).append({"start": float(s), "end": float(e), "wall": float(e) - float(s), "ok": rc == "0" and same == "1"})

def log_stats(w, run):
    """Requests the server saw during a run, the span from the first arrival to the
    last reply, and the peak number in flight."""
    recs = []
    path = os.path.join(work, f"{w}.log")
    if os.path.exists(path):
        for line in open(path):
            rec = json.loads(line)
            if run["start"] <= rec["arrival"] <= run["end"]:
                recs.append(rec)
    if not recs:
        return 0, None, 0
    span = max(r["reply"] for r in recs) - min(r["arrival"] for r in recs)
    ev = sorted([(r["arrival"], 1) for r in recs] + [(r["reply"], -1) for r in recs])
    cur = peak = 0
    for _, d in ev:
        cur += d
        peak = max(peak, cur)
    return len(recs), span, peak

def f(x, nd=2):
    return "n/a" if x is None else f"{x:.{nd}f}"

rows, details, verdicts = [], [], []
for w in workloads:
    cp = json.load(open(os.path.join(work, f"{w}.cp.json")))
    scale = float(open(os.path.join(work, f"{w}.scale")).read())
    CP, SUM = cp["critical_path"] * scale, cp["sum"] * scale
    ideal = cp["ideal_speedup"]
    paper_txt, paper_best = PAPER.get(w, ("-", None))
    def wall(v):
        rs = runs.get((w, v), [])
        return med([r["wall"] for r in rs]) if rs else None
    sp, sq, py, spec = wall("spindle"), wall("seq"), wall("py"), wall("spec")
    oks = all(r["ok"] for v in VARIANTS for r in runs.get((w, v), []))
    sp_cp = (sp - su_sp) / CP if sp is not None else None
    speedup = sq / sp if sp and sq else None
    sp_py = sp / py if sp and py else None
    py_cp = (py - su_py) / CP if py is not None else None
    spec_cp = (spec - su_sp) / CP if spec is not None else None
    rows.append(f"| {w} | {cp['calls']} | {f(CP)} | {f(SUM)} | {f(ideal)}x | {paper_txt} | {f(sp)} | {f(sp_cp)} | "
                f"{f(speedup)}x | {f(py)} | {f(py_cp)} | {f(sp_py)} | {f(spec)} ({f(spec_cp)}) | {'yes' if oks else 'NO'} |")
    need = min(paper_best, 0.9 * ideal) if paper_best else 0.9 * ideal
    if sp is not None:
        t1 = sp_py is not None and sp_py <= 1.05
        t2 = sp_cp <= 1.10
        t3 = speedup is not None and speedup >= need
        verdicts.append(f"| {w} | {f(sp_py)} {'ok' if t1 else 'MISSED'} | {f(sp_cp)} {'ok' if t2 else 'MISSED'} | "
                        f"{f(speedup)}x vs {f(need)}x {'ok' if t3 else 'MISSED'} |")
    for v in VARIANTS:
        for r in runs.get((w, v), []):
            n, span, peak = log_stats(w, r)
            r.update(requests=n, span=span, peak=peak)
        rs = runs.get((w, v), [])
        if rs:
            spans = [r["span"] for r in rs if r["span"] is not None]
            details.append(f"| {w} | {v} | {f(med([r['wall'] for r in rs]))} | {f(med(spans) if spans else None)} | "
                           f"{'/'.join(str(r['requests']) for r in rs)} (replay: {cp['calls']}) | "
                           f"{max(r['peak'] for r in rs)} | {sum(r['ok'] for r in rs)}/{len(rs)} |")

try:
    version = subprocess.run([spindle, "--version"], capture_output=True, text=True).stdout.strip()
except OSError:
    version = "?"
out = []
out.append(f"# LLM workloads (issue 27): Spindle against hand-written asyncio\n")
out.append(f"{time.strftime('%Y-%m-%d %H:%M')}, {platform.node()}, {os.cpu_count()} cores; {version}; "
           f"mock seed {seed}; median of {reps} rounds; every latency scaled so that each critical path "
           f"takes about the same time (scales: " + ", ".join(f"{w} {float(open(os.path.join(work, w + '.scale')).read()):.3f}" for w in workloads) + ").\n")
out.append(f"Start-up: `spindle run` of a trivial program {su_sp * 1000:.0f} ms (subtracted for Spindle/CP); "
           f"`python3 -c 'import asyncio, aiohttp'` {su_py * 1000:.0f} ms (subtracted for asyncio/CP).\n")
unscaled = []
for w in workloads:
    cp = json.load(open(os.path.join(work, f"{w}.cp.json")))
    unscaled.append(f"{w} {cp['critical_path']:.1f} s / {cp['sum']:.1f} s")
out.append("At the papers' own latencies (scale 1), critical path / sum of latencies: " + "; ".join(unscaled) + ".\n")
out.append("| workload | calls | critical path (s) | sum of latencies (s) | ideal speedup | paper's speedup | Spindle (s) | Spindle/CP | Spindle speedup over --sequential | asyncio (s) | asyncio/CP | Spindle/asyncio | Spindle --speculate-paid (s) (/CP) | outputs agree |")
out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
out += rows
out.append("")
out.append("Critical path and sum: the asyncio twin replayed on a virtual clock with the mock's latencies (critpath.py), "
           "at the scale used. Spindle/CP: (Spindle's wall time - start-up) / critical path; asyncio/CP likewise with "
           "Python's start-up. Speedup: wall time of `spindle run --sequential` over `spindle run`. Walls are whole "
           "processes (start-up included). `--speculate-paid` lets model calls start before they are certainly needed.\n")
if verdicts:
    out.append("Targets (issue 27): at most 1.05x asyncio's wall time; within 1.10x of the critical path after start-up; "
               "speedup over sequential at least min(best paper's, 0.9 x ideal).\n")
    out.append("| workload | Spindle/asyncio <= 1.05 | Spindle/CP <= 1.10 | speedup >= target |")
    out.append("| --- | --- | --- | --- |")
    out += verdicts
    out.append("")
out.append("Per variant (from the mock's request log): median wall, median span from the first request's arrival to "
           "the last reply, requests per round (the replay's count), most requests in flight at once, rounds whose output agreed.\n")
out.append("| workload | variant | wall (s) | server span (s) | requests | peak in flight | ok |")
out.append("| --- | --- | --- | --- | --- | --- | --- |")
out += details
text = "\n".join(out) + "\n"
print(text)
with open(results, "w") as fh:
    fh.write(text)
EOF
