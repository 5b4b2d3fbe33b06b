#!/usr/bin/env python3
"""When each request of one benchmark run reached the mock server, against when the
virtual replay (critpath.py) starts it: what a run waits for that it need not.

    KEEP=1 bash benches/llm/run.sh tot        # prints "work directory: DIR"
    python3 benches/llm/timeline.py DIR tot spindle [ROUND]

VARIANT is spindle, seq, spec or py. Times are seconds from the process's start; "late"
is the arrival minus the replay's start (scaled), so start-up is included in it.
"""

import json
import os
import signal
import sys


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    work, w, variant = sys.argv[1:4]
    rnd = sys.argv[4] if len(sys.argv) > 4 else "1"
    scale = float(open(os.path.join(work, f"{w}.scale")).read())
    cp = json.load(open(os.path.join(work, f"{w}.cp.json")))
    ideal = {}
    for c in cp.get("replay", []):
        ideal.setdefault(c["key"], []).append(c["start"] * scale)
    run = None
    for line in open(os.path.join(work, "runs.tsv")):
        f = line.rstrip("\n").split("\t")
        if f[0] == w and f[1] == variant and f[2] == rnd:
            run = (float(f[3]), float(f[4]))
    if run is None:
        sys.exit(f"no run {w} {variant} round {rnd} in {work}/runs.tsv")
    s, e = run
    recs = [json.loads(l) for l in open(os.path.join(work, f"{w}.log"))]
    recs = sorted((r for r in recs if s <= r["arrival"] <= e), key=lambda r: r["arrival"])
    print(f"{w} {variant} round {rnd}: wall {e - s:.3f} s, critical path {cp['critical_path'] * scale:.3f} s, {len(recs)} requests")
    print(f"{'kind':14} {'arrival':>8} {'reply':>8} {'replay':>8} {'late':>7}  prompt")
    for r in recs:
        starts = ideal.get(r.get("key"), [])
        st = starts.pop(0) if starts else None
        late = f"{r['arrival'] - s - st:7.3f}" if st is not None else "      ?"
        sts = f"{st:8.3f}" if st is not None else "       ?"
        print(f"{r['kind']:14} {r['arrival'] - s:8.3f} {r['reply'] - s:8.3f} {sts} {late}  {r.get('prompt', '')[-70:]!r}")


if __name__ == "__main__":
    main()
