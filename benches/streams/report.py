#!/usr/bin/env python3
"""Writes benches/streams/results.md from a work directory of run.sh (see there).

    python3 report.py WORK RESULTS SPINDLE WORKLOAD...
"""

import json
import os
import platform
import statistics
import subprocess
import sys
import time

work, results, spindle = sys.argv[1:4]
workloads = sys.argv[4:]
med = statistics.median
cfg = json.load(open(os.path.join(work, "config.json")))
startup = json.load(open(os.path.join(work, "startup.json")))

# OPAL Table 1, latency (time to first output): sequential Python over OPAL.
OPAL = {"city": 5.6, "tts": 12.7}
NAMES = {
    "spindle": "Spindle",
    "seq": "Spindle --sequential",
    "nested": "Spindle, tts_nested.sp",
    "spec": "Spindle --speculate-paid",
    "py": "Python asyncio (streaming)",
    "pyseq": "Python sequential (blocking)",
}
ORDER = ["spindle", "seq", "nested", "spec", "py", "pyseq"]

runs = {}
for line in open(os.path.join(work, "runs.jsonl")):
    r = json.loads(line)
    runs.setdefault((r["w"], r["v"]), []).append(r)


def f(x, nd=2):
    return "n/a" if x is None else f"{x:.{nd}f}"


def ms(x):
    return "n/a" if x is None else f"{x * 1000:.0f}"


def mlog(w):
    path = os.path.join(work, f"{w}.log")
    if not os.path.exists(path):
        return []
    return [json.loads(l) for l in open(path)]


def call_lag(w, run, ideal):
    """Requests the mock saw during a run, and the most any of them started after it
    could have (its arrival, from the run's start, minus its ideal start)."""
    starts = ideal.get("starts") or {}
    recs = [x for x in mlog(w) if run["start"] <= x["arrival"] <= run["start"] + run["end"]]
    lags = [x["arrival"] - run["start"] - starts[x["prompt"]] for x in recs if x.get("prompt") in starts]
    return len(recs), (max(lags) if lags else None)


def stat(w, v, key):
    xs = [r[key] for r in runs.get((w, v), []) if r.get(key) is not None]
    return med(xs) if xs else None


out = []
flow_rows, target_rows, notes, lingers = [], [], [], []
for w in [w for w in workloads if w in ("city", "tts", "logs")]:
    ideal = json.load(open(os.path.join(work, f"{w}.ideal.json")))
    I1, IE = ideal["ttfo"], ideal["end"]
    for v in ORDER:
        rs = runs.get((w, v))
        if not rs:
            continue
        first, last, end = stat(w, v, "first"), stat(w, v, "last"), stat(w, v, "end")
        linger = max(r["end"] - (r["last"] or 0) for r in rs)
        lags = [call_lag(w, r, ideal) for r in rs]
        nreq = "/".join(str(n) for n, _ in lags) if w != "logs" else "-"
        lagv = [l for _, l in lags if l is not None]
        flow_rows.append(
            f"| {w} | {NAMES[v]} | {f(first)} | {f(first / I1 if first else None)} | {f(last)} | {f(end)} | "
            f"{f(end / IE if end else None)} | {f(linger)} | {nreq} | {f(max(lagv) if lagv else None)} | "
            f"{sum(r['ok'] for r in rs)}/{len(rs)} |"
        )
    sp1, spE = stat(w, "spindle", "first"), stat(w, "spindle", "end")
    py1, pyE = stat(w, "py", "first"), stat(w, "py", "end")
    ps1, psE = stat(w, "pyseq", "first"), stat(w, "pyseq", "end")
    isp = ideal["ideal_ttfo_speedup"]
    target = min(OPAL[w], 0.9 * isp) if w in OPAL else 0.9 * isp
    opal_txt = f"{OPAL[w]}x" if w in OPAL else "-"
    seq_same = all(r["ok"] for r in runs.get((w, "seq"), [])) and bool(runs.get((w, "seq")))
    ok = lambda c: "ok" if c else "MISSED"  # noqa: E731
    t_ratio = sp1 / I1 if sp1 else None
    t_delta = sp1 - I1 if sp1 else None
    speed = ps1 / sp1 if sp1 and ps1 else None
    target_rows.append(
        f"| {w} | {f(I1)} / {f(IE)} | {f(ideal['seq_ttfo'])} / {f(ideal['seq_end'])} | {f(isp)}x / {f(ideal['ideal_end_speedup'])}x | "
        f"{opal_txt + ' -> ' + f(target) + 'x' if w in OPAL else '-'} | "
        f"{f(t_ratio)} {ok(t_ratio is not None and t_ratio <= 1.10) if w in OPAL else '(no target)'} | "
        f"{ms(t_delta)} {ok(t_delta is not None and t_delta <= 0.05)} | "
        f"{f(speed)}x {ok(speed is not None and speed >= target) if w in OPAL else '(no target)'} | {f(psE / spE if psE and spE else None)}x | "
        f"{f(spE / IE if spE else None)} | {f(sp1 / py1 if sp1 and py1 else None)} / {f(spE / pyE if spE and pyE else None)} | "
        f"{'yes' if seq_same else 'NO'} |"
    )
    # Notes read off the figures.
    if spE and spE / IE > 1.3:
        nr = [call_lag(w, r, ideal) for r in runs.get((w, "spindle"), [])]
        lag = med([l for _, l in nr if l is not None]) if any(l is not None for _, l in nr) else None
        line = f"- **{w}: Spindle ends at {spE / IE:.2f}x the ideal.**"
        if lag is not None and lag > 0.3:
            line += f" Its model calls start late: in the median round the latest started {lag:.2f} s after it could have."
        if w == "tts" and runs.get((w, "nested")):
            ne = stat(w, "nested", "end")
            line += (f" The same program phrased per reply (tts_nested.sp: "
                     f"`concatStrings (map (\\t -> concatStrings (map speak (paragraph t))) topics)` instead of "
                     f"`concatStrings (map speak (concatMap paragraph topics))`) ends at {ne / IE:.2f}x the ideal.")
            sp = stat(w, "spec", "end")
            if sp:
                line += f" With `--speculate-paid`, tts.sp ends at {sp / IE:.2f}x."
            line += (" In tts.sp the next reply's `llmStream` call is reached only by walking the spine of "
                     "`paragraph t1 ++ concatMap paragraph rest`, past the end of the previous reply's stream: "
                     "the printer's walk waits for that stream to end, and a speculative walk never reads a stream "
                     "ahead, so each reply is asked when the previous one ends (with `--speculate-paid`, one reply "
                     "ahead). The same holds for processes: `unlines (shellLines \"sleep 1; echo a\" ++ shellLines "
                     "\"sleep 1; echo b\")` takes 2 s, while `length` of the same list takes 1 s. (By the letter of "
                     "\"certainly needed\", the second stream is needed only if the first one ends, so this may be "
                     "by design; OPAL dispatches both.)")
        if w == "logs" and pyE:
            line += (f" The ideal leaves out the consumer's own work per line (reading and filtering "
                     f"{cfg['log_lines']:,} lines, which `tail` alone writes in {ideal['producer_end']:.2f} s); the asyncio twin, which does that work too, ends at {pyE / IE:.2f}x.")
        notes.append(line)
    for r in runs.get((w, "seq"), []):
        lingers.append((w, r["end"] - (r["last"] or 0)))
    if w in OPAL and t_ratio is not None and t_ratio > 1.10:
        notes.append(f"- **{w}: first output at {t_ratio:.2f}x the ideal ({ms(t_delta)} ms late).**")
    if w in OPAL and speed is not None and speed < target:
        notes.append(f"- {w}: time-to-first-output speedup over sequential Python {speed:.2f}x, under the target {target:.2f}x.")

long = [(w, x) for w, x in lingers if x > 1.0]
if long:
    notes.append(f"- **`--sequential` exits up to {max(x for _, x in long):.1f} s after its last output** in "
                 f"{len(long)} of {len(lingers)} runs ({', '.join(sorted(set(w for w, _ in long)))}), busy on a CPU: its "
                 f"shutdown waits for the streams in `CallPolicy::end_streams` (a 10 s deadline), and `Calls::wait` "
                 f"returns at once when nothing is in flight, so the loop spins until the deadline.")

big_rows, big_notes = [], []
if "big" in workloads and os.path.exists(os.path.join(work, "big.tsv")):
    bj = json.load(open(os.path.join(work, "big.json")))
    rows = {}
    for line in open(os.path.join(work, "big.tsv")):
        t, v, r, wall, rss, ok = line.rstrip("\n").split("\t")
        rows.setdefault((t, v), []).append((float(wall), float(rss) / 1024, ok == "1"))
    def b(t, v, i):
        xs = [x[i] for x in rows.get((t, v), [])]
        return med(xs) if xs else None
    for t, size, what in (("filter", bj["bytes"], f"`length (filter (startsWith \"keep\") (readLines f))`, {bj['bytes'] / 1e6:.0f} MB"),
                          ("print", bj["lines_bytes"], "`unlines (readLines f)`, 1M lines (13 MB), printed to a pipe")):
        for v, name in (("spindle", "Spindle"), ("seq", "Spindle --sequential"), ("python", "CPython" if t == "filter" else "CPython, `sys.stdout.writelines(open(f))`")):
            rs = rows.get((t, v))
            if not rs:
                continue
            wall, rss = b(t, v, 0), b(t, v, 1)
            big_rows.append(f"| {what} | {name} | {f(wall)} | {f(size / 1e6 / wall, 0) if wall else 'n/a'} | "
                            f"{f(rss, 1)} (max {f(max(x[1] for x in rs), 1)}) | {sum(x[2] for x in rs)}/{len(rs)} |")
    sw, pw = b("filter", "spindle", 0), b("filter", "python", 0)
    srss_max = max((x[1] for x in rows.get(("filter", "spindle"), [])), default=None)
    prss_max = max((x[1] for x in rows.get(("print", "spindle"), [])), default=None)
    qrss = b("filter", "seq", 1)
    if sw and pw:
        big_notes.append(f"- 1 GB filter: Spindle {bj['bytes'] / 1e6 / sw:.0f} MB/s against CPython's {bj['bytes'] / 1e6 / pw:.0f} MB/s "
                         f"({'ok' if sw <= pw else 'MISSED'}: target at least CPython's throughput); peak RSS at most "
                         f"{srss_max:.0f} MB ({'ok' if srss_max < 80 else 'MISSED'}: target under 80 MB)"
                         + (f"; `--sequential` {qrss:.0f} MB at {bj['bytes'] / 1e6 / b('filter', 'seq', 0):.0f} MB/s" if qrss else "") + ".")
    if prss_max is not None:
        big_notes.append(f"- Streamed `main` printing 1M lines: peak RSS at most {prss_max:.0f} MB "
                         f"({'ok' if prss_max < 20 else 'MISSED'}: target under 20 MB)"
                         + (f"; `--sequential` {b('print', 'seq', 1):.0f} MB in {b('print', 'seq', 0):.2f} s against {b('print', 'spindle', 0):.2f} s"
                            if rows.get(("print", "seq")) else "") + ".")

try:
    version = subprocess.run([spindle, "--version"], capture_output=True, text=True).stdout.strip()
except OSError:
    version = "?"
try:
    commit = subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(__file__)), "log", "-1", "--format=%h"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(__file__)), "status", "--porcelain", "--", "src", "prelude"], capture_output=True, text=True).stdout.strip()
except OSError:
    commit, dirty = "?", ""

ideals = []
for w in ("city", "tts", "logs"):
    p = os.path.join(work, f"{w}.ideal.json")
    if w in workloads and os.path.exists(p):
        ideals.append(f"{w} {json.load(open(p))['ideal_ttfo_speedup']:.1f}x")
IDEALS = " (ideal speedups here: " + ", ".join(ideals) + ")" if ideals else ""

README = f"""# Streaming benchmarks (issue 28)

Streams as lazy lists fed by their producers (`llmStream`, `shellLines`, `readLines`,
`streamLines`), measured for time to first output and time to the end against the ideal,
against sequential Python and against hand-written asyncio with streaming.

**Workloads** (each a Spindle program `W.sp`, a hand-written asyncio twin `W.py` that
streams, and a blocking one-call-after-another twin `W_seq.py`, OPAL's baseline; all
print the same bytes):

- **city**, OPAL's CityExcursions (§2, Table 1): a model streams 10 places, one per line
  (`streamLines (llmStream ...)`); as soon as a place's line has arrived, its own
  streamed call asks for an excursion there (a stream of streams); each section is printed
  in order as its chunks arrive. 11 model calls.
- **tts**, OPAL's TextToSpeech (§6.1: "concatenates several independent calls to a
  language model and feeds them to an external text-to-speech tool in a streaming
  fashion"): 6 independent streamed replies of two sentences each; each reply is cut into
  sentences as its chunks arrive and each sentence goes to a process (`sh -c 'sleep 0.2;
  printf ...'`, the stand-in synthesiser) as soon as it is complete; outputs in order.
  `tts_nested.sp` is the same program phrased per reply, and tts.sp also runs with
  `--speculate-paid` (see the notes).
- **logs**: `shellLines "tail -n +1 big.log"` (a generated service log of
  {cfg['log_lines']:,} lines), filtered to its 40 ERROR lines, and a short process
  (`sleep 0.1; printf ...`) per kept line, outputs in order. The asyncio twin runs at
  most 64 tools at once (Spindle's default `--jobs`).
- **big**: `length (filter (startsWith "keep") (readLines f))` over a generated file of
  {cfg['big_mb']} MB against CPython's `sum(1 for l in open(f) if l.startswith("keep"))`, and
  a streamed `main`, `unlines (readLines f)` of 1M lines, with their peak RSS
  (`/usr/bin/time -f %M`).

**Run:** `cargo build --release && bash benches/streams/run.sh` (about 9 minutes;
`--quick`: one round, a 100 MB file, a smaller log; `REPS`, `SCALE`, `SHARE`, `SEED`,
`BIG_DIR`, `KEEP=1` as in the script's header; or name workloads: `run.sh city tts`). The
big files go to `/tmp/spindle-streams` (generated if missing). The model side is
`benches/llm/mock_server.py --workload city --scale {cfg['scale']} --first-chunk-share {cfg['share']}`:
calls of 4.6 s x {cfg['scale']} on average (lognormal, sigma 0.3; the same draws for every
client), the first piece after a tenth of the call's latency (about a real model's time
to first token), the other pieces (words) evenly spread up to the latency.

**Ideal** (`ideal.py`, from the mock's own plans for each request): a piece of a reply
arrives at `first + k x interval`; a line or sentence is complete when the piece holding
its newline or full stop has arrived. Time to first output: the first line's arrival
(city; printing `## place` needs the place), the first sentence's arrival plus the
synthesiser's measured time (tts), the first error line's arrival (from the measured
time `tail` takes to write the log) plus the tool's measured time (logs). End (critical
path): the last of the per-item chains (a line's arrival plus its call's latency, or a
sentence's arrival plus the tool), with every call starting at its earliest; for logs
with 64 slots. The consumer's own work per line (filtering) is not in the ideal. The
sequential baseline's own ideal (`seq`): the whole listing / all replies / the whole log
before the first output, and the sum after. The **ideal speedup** for time to first
output is `seq / ideal`; the target is OPAL's speedup (5.6x city, 12.7x tts) or 0.9x
this workload's ideal speedup if lower: with a first piece at a tenth of the latency, the
first of 10 lines is complete at about 0.19 of the listing's latency, and the first of
two sentences at about 0.57 of its reply's latency plus the synthesiser, against 6
replies asked one after another{IDEALS}.
"""

out.append(README)
out.append("## Figures\n")
out.append(f"{time.strftime('%Y-%m-%d %H:%M')}, {platform.node()}, {os.cpu_count()} cores (shared); {version}, commit {commit}"
           f"{' with uncommitted changes under src/ or prelude/' if dirty else ''} (binary built {cfg.get('built', '?')}); median of {cfg['reps']} rounds; "
           f"mock seed {cfg['seed']}, scale {cfg['scale']}, first-chunk share {cfg['share']}.\n")
out.append(f"Start-up: a trivial `spindle run` {startup['spindle'] * 1000:.0f} ms; `python3 -c 'import asyncio, aiohttp'` "
           f"{startup['python_aiohttp'] * 1000:.0f} ms (both included in every time below).\n")
if target_rows:
    out.append("### Targets\n")
    out.append("Issue 28's targets: first output within 50 ms of the ideal (every workload); for city and tts, first "
               "output within 1.10x of the ideal and a speedup of the first output over sequential Python of at least "
               "OPAL's (or 0.9x the workload's own ideal speedup if lower).\n")
    out.append("| workload | ideal first output / end (s) | sequential baseline's ideal (s) | ideal speedup, first output / end | OPAL's speedup -> target | Spindle first output / ideal (<= 1.10) | Spindle first output - ideal, ms (<= 50) | Python sequential / Spindle, first output (>= target) | Python sequential / Spindle, end | Spindle end / ideal | Spindle / asyncio, first output / end | --sequential same output |")
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    out += target_rows
    out.append("")
    out.append("### Every variant\n")
    out.append("Medians, seconds from the start of the process: first byte of output, last byte, exit; `lingers`: the most "
               "any round's exit came after its last output; `requests`: model requests the mock saw per round; "
               "`latest start`: the most any request of a round arrived after its ideal start (start-up included).\n")
    out.append("| workload | variant | first output | / ideal | last output | end (exit) | / ideal | lingers (max) | requests | latest start (max) | output ok |")
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    out += flow_rows
    out.append("")
if big_rows:
    out.append("### 1 GB stream and a streamed main\n")
    out.append(f"Median of {cfg.get('big_reps', cfg['reps'])} rounds (the files in the page cache); wall and peak RSS from "
               f"`/usr/bin/time -f '%e %M'`; MB/s is the file's size over the wall time.\n")
    out.append("| what | variant | wall (s) | MB/s | peak RSS (MB), median (max) | output ok |")
    out.append("| --- | --- | --- | --- | --- | --- |")
    out += big_rows
    out.append("")
if notes or big_notes:
    out.append("## Notes (read off the figures above)\n")
    out += notes + big_notes
    out.append("")
text = "\n".join(out) + "\n"
print(text)
with open(results, "w") as fh:
    fh.write(text)
