#!/usr/bin/env python3
"""Runs a command and records when its first byte of standard output came and when it
ended (the streaming benchmarks of issue 28).

    python3 timing.py [--out FILE] [--err FILE] [--json FILE] [--cwd DIR] -- CMD ARGS...

The command's standard output is read as it is written (unbuffered, `os.read` on the
pipe) and copied to `--out` (default: discarded); its standard error goes to `--err`
(default: inherited). Printed on standard output (and written to `--json` if given),
one JSON object:

    {"start": epoch seconds when the command was started,
     "first": seconds from the start to the first byte of standard output (null if none),
     "last": seconds from the start to the last byte of standard output (null if none),
     "end": seconds from the start to the end (standard output closed and the process
            reaped),
     "rc": exit status (negative: killed by that signal),
     "bytes": bytes of standard output,
     "maxrss_kb": peak resident set size of the command's biggest process (getrusage of
                  the children this harness reaped: the command itself and, for a
                  command that waits for its own children, theirs)}

Times come from `time.monotonic()`; `start` from `time.time()` taken at the same moment,
to compare with the mock server's log.
"""

import json
import os
import resource
import subprocess
import sys
import time


def main():
    argv = sys.argv[1:]
    opts = {"--out": None, "--err": None, "--json": None, "--cwd": None}
    while argv and argv[0] != "--":
        if argv[0] in opts and len(argv) >= 2:
            opts[argv[0]] = argv[1]
            argv = argv[2:]
        else:
            sys.exit(f"timing.py: unknown option {argv[0]!r} (options before `--`: {', '.join(opts)})")
    if not argv or argv[0] != "--" or len(argv) < 2:
        sys.exit("usage: timing.py [--out FILE] [--err FILE] [--json FILE] [--cwd DIR] -- CMD ARGS...")
    cmd = argv[1:]
    out = open(opts["--out"], "wb") if opts["--out"] else None
    err = open(opts["--err"], "wb") if opts["--err"] else None
    start_wall = time.time()
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, cwd=opts["--cwd"], bufsize=0)
    fd = proc.stdout.fileno()
    first = last = None
    total = 0
    while True:
        data = os.read(fd, 1 << 16)
        if not data:
            break
        now = time.monotonic() - t0
        if first is None:
            first = now
        last = now
        total += len(data)
        if out is not None:
            out.write(data)
    rc = proc.wait()
    end = time.monotonic() - t0
    if out is not None:
        out.close()
    if err is not None:
        err.close()
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    rec = {"start": start_wall, "first": first, "last": last, "end": end, "rc": rc, "bytes": total, "maxrss_kb": rss}
    text = json.dumps(rec)
    if opts["--json"]:
        with open(opts["--json"], "w") as fh:
            fh.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
