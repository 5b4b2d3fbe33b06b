#!/usr/bin/env python3
"""Generates the input files of the streaming benchmarks (deterministic: a fixed seed).

    python3 gen.py log FILE [--lines N] [--kept K]
        a service log of N lines (default 200,000; about 80 bytes each), K of them
        (default 40, evenly spread) with level ERROR, the rest INFO/DEBUG/WARN
    python3 gen.py keep FILE [--mb M]
        about M MB (default 1024; 1 MB = 10^6 bytes) of lines "keep NNNNNNNNN xxx..." or
        "drop NNNNNNNNN xxx..." (30% keep), 20 to 140 x's: lines of 84 bytes on average
    python3 gen.py lines FILE [--lines N]
        N lines (default 1,000,000) "line NNNNNNN", to print back

A file that exists with the size it would have is left alone (prints "exists").
"""

import argparse
import os
import random
import sys


def gen_log(path, n, k):
    rng = random.Random(28)
    every = n // k
    levels = ["INFO"] * 6 + ["DEBUG"] * 3 + ["WARN"]
    with open(path, "w") as f:
        for i in range(n):
            ms = i * 7
            ts = f"2026-11-27T{10 + ms // 3600000:02d}:{ms // 60000 % 60:02d}:{ms // 1000 % 60:02d}.{ms % 1000:03d}"
            svc = f"svc-{rng.randint(1, 12):02d}"
            if i % every == every // 2 and i // every < k:
                f.write(f"{ts} ERROR {svc} request {i:07d} failed: upstream timeout after {rng.randint(100, 999)} ms\n")
            else:
                f.write(f"{ts} {rng.choice(levels):5} {svc} request {i:07d} served in {rng.randint(1, 99)} ms\n")


def gen_keep(path, mb):
    target = mb * 1_000_000
    rng = random.Random(28)
    xs = "x" * 200
    n = 0
    i = 0
    with open(path, "w") as f:
        buf = []
        while n < target:
            w = "keep" if rng.random() < 0.3 else "drop"
            line = f"{w} {i:09d} {xs[: rng.randint(20, 140)]}\n"
            buf.append(line)
            n += len(line)
            i += 1
            if len(buf) >= 10000:
                f.write("".join(buf))
                buf = []
        f.write("".join(buf))


def gen_lines(path, n):
    with open(path, "w") as f:
        for i in range(0, n, 10000):
            f.write("".join(f"line {j:07d}\n" for j in range(i, min(n, i + 10000))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("kind", choices=["log", "keep", "lines"])
    ap.add_argument("file")
    ap.add_argument("--lines", type=int)
    ap.add_argument("--kept", type=int, default=40)
    ap.add_argument("--mb", type=int, default=1024)
    a = ap.parse_args()
    if a.kind == "keep" and os.path.exists(a.file) and a.mb * 1_000_000 <= os.path.getsize(a.file) <= a.mb * 1_000_000 + 200:
        print("exists")
        return
    if a.kind == "lines" and os.path.exists(a.file) and os.path.getsize(a.file) == 13 * (a.lines or 1_000_000):
        print("exists")
        return
    tmp = a.file + ".tmp"
    if a.kind == "log":
        gen_log(tmp, a.lines or 200_000, a.kept)
    elif a.kind == "keep":
        gen_keep(tmp, a.mb)
    else:
        gen_lines(tmp, a.lines or 1_000_000)
    os.replace(tmp, a.file)
    print("generated")


if __name__ == "__main__":
    sys.exit(main())
