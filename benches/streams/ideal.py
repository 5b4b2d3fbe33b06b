#!/usr/bin/env python3
"""The ideal times of the streaming workloads (issue 28), from the mock's configured
latencies, and the output every variant must print.

    python3 ideal.py city --seed 1 --scale 0.4 --first-chunk-share 0.1 [--output FILE]
    python3 ideal.py tts  --seed 1 --scale 0.4 --first-chunk-share 0.1 --tool SECONDS [--output FILE]
    python3 ideal.py logs --log big.log --producer-first S --producer-end S --tool SECONDS [--jobs 64] [--output FILE]

prints one JSON object: `ttfo` and `end` (the ideal time to first output and to the
end, seconds from the start), `seq_ttfo` and `seq_end` (what the blocking, one call after
another Python baseline needs at least), the ideal speedups `seq_ttfo / ttfo` and
`seq_end / end`, the number of calls, and (city, tts) `starts`: each model request's
prompt and the time it can start at the earliest.

How a streamed reply is timed: `plan_chat` (the function the mock server itself uses;
imported from ../llm/mock_server.py) gives each request's latency L and its pieces
(a word with the white space before it). The server sends the first piece after
`first = share x L x scale` and the others one interval apart, `(L x scale - first) /
(pieces - 1)`, so piece k (from 0) arrives at `first + k x interval` and the last one
at `L x scale`; a non-streamed request answers at `L x scale`. A line (city) is
complete when the piece holding its newline has arrived (the last line: when the
stream ends); a sentence (tts) when the piece holding its full stop has arrived.

- city: the listing starts at 0; place i's excursion call starts when its line is
  complete (t_i) and ends at t_i + L_i. ttfo = t_1 (printing "## place" needs the
  place); end = the last of the excursions' ends and the listing's end. The sequential
  baseline prints the first place after the whole listing: seq_ttfo = L_list, seq_end =
  L_list + sum L_i.
- tts: every reply starts at 0; sentence j of reply k is complete at t_kj and its tool
  (a process taking `--tool` seconds, measured) ends at t_kj + tool; outputs are printed
  in order, so ttfo = t_11 + tool and end = max t_kj + tool. Sequential: all replies one
  after another, then the tool per sentence: seq_ttfo = sum L_k + tool, seq_end = sum
  L_k + sentences x tool.
- logs: the producer (`tail -n +1`) writes its first byte at `--producer-first` and its
  last at `--producer-end` (measured), at an even byte rate in between, so error line i
  (at byte offset o_i) arrives at first + (end - first) x o_i / size; its tool starts
  then (at most `--jobs` at once, in order) and takes `--tool` seconds. ttfo = arrival of
  the first error + tool; end = the last tool's end. Sequential: the whole log read,
  then one tool after another: seq_ttfo = producer end + tool, seq_end = producer end +
  errors x tool. The consumer's own work per line (the filter) is not in the ideal.
"""

import argparse
import heapq
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "llm"))
sys.dont_write_bytecode = True

import mock_server  # noqa: E402

MODEL = "gpt-3.5-turbo"
CITY = "Kyoto"
TOPICS = ["the Old Market", "the Golden Pavilion", "the Stone Garden", "the Bamboo Path", "the River Bridge", "the Lantern Shrine"]


def body(prompt):
    return {"model": MODEL, "messages": [{"role": "user", "content": prompt}]}


class Reply:
    """A streamed reply's text and the arrival time of each of its characters."""

    def __init__(self, prompt, args, workload):
        plan = mock_server.plan_chat(body(prompt), workload, args.seed)
        self.prompt = prompt
        self.text = plan["choices"][0][0]
        self.latency = plan["latency"] * args.scale
        pieces = plan["pieces"][0]
        if args.first_chunk_share is not None:
            first = plan["latency"] * args.first_chunk_share * args.scale
        else:
            first = plan["first_chunk"] * args.scale
        every = (self.latency - first) / (len(pieces) - 1) if len(pieces) > 1 else 0.0
        self.char_time = []
        for k, p in enumerate(pieces):
            self.char_time += [first + k * every] * len(p)
        self.end = first + (len(pieces) - 1) * every if pieces else 0.0

    def complete_at(self, sep):
        """[(part, time)]: the text cut at `sep` (kept out), each part with the time its
        separator arrived (the last part: the stream's end)."""
        out, start = [], 0
        while True:
            i = self.text.find(sep, start)
            if i < 0:
                out.append((self.text[start:], self.end))
                return out
            out.append((self.text[start:i], self.char_time[i]))
            start = i + len(sep)


def city(args):
    listing = Reply(f"List 10 places to visit in {CITY}, one per line, names only.", args, "city")
    ends, total, out = [listing.end], listing.latency, []
    starts = {listing.prompt: 0.0}
    first = None
    for line, t in listing.complete_at("\n"):
        place = line.strip()
        if not place:
            continue
        first = t if first is None else first
        exc = Reply(f"Plan a half-day excursion to {place} in {CITY} in three steps.", args, "city")
        starts[exc.prompt] = t
        ends.append(t + exc.latency)
        total += exc.latency
        out.append("## " + place + "\n" + exc.text + "\n")
    return {"ttfo": first, "end": max(ends), "seq_ttfo": listing.latency, "seq_end": total, "calls": 1 + len(out), "starts": starts}, "".join(out) + "\n"


def sentences_of(reply):
    """Like the programs' splitter: cut at ".", each sentence with its full stop and
    trimmed; a last part without one is a sentence if not blank."""
    parts = reply.complete_at(".")
    out = [((p + ".").strip(), t) for p, t in parts[:-1]]
    if parts[-1][0].strip():
        out.append((parts[-1][0].strip(), parts[-1][1]))
    return out


def tts(args):
    replies = [Reply(f"Describe {t} in Kyoto in two sentences.", args, "city") for t in TOPICS]
    sents = [s for r in replies for s in sentences_of(r)]
    total = sum(r.latency for r in replies)
    out = "".join(f"audio: {s}\n" for s, _ in sents) + "\n"
    return {
        "ttfo": sents[0][1] + args.tool,
        "end": max(t for _, t in sents) + args.tool,
        "seq_ttfo": total + args.tool,
        "seq_end": total + len(sents) * args.tool,
        "calls": len(replies),
        "processes": len(sents),
        "starts": {r.prompt: 0.0 for r in replies},
    }, out


def logs(args):
    size = os.path.getsize(args.log)
    arrivals, out, offset = [], [], 0
    with open(args.log, "rb") as f:
        for raw in f:
            offset += len(raw)
            line = raw.decode("utf-8").rstrip("\n")
            if " ERROR " in line:
                arrivals.append(args.producer_first + (args.producer_end - args.producer_first) * offset / size)
                out.append(f"ticket: {line}\n")
    # At most `jobs` tools at once, started in order as slots free up.
    slots = [0.0] * args.jobs
    ends = []
    for a in arrivals:
        free = heapq.heappop(slots)
        e = max(a, free) + args.tool
        heapq.heappush(slots, e)
        ends.append(e)
    n = len(arrivals)
    return {
        "ttfo": (arrivals[0] + args.tool) if n else args.producer_end,
        "end": max(ends + [args.producer_end]),
        "seq_ttfo": args.producer_end + args.tool,
        "seq_end": args.producer_end + n * args.tool,
        "calls": n,
        "producer_end": args.producer_end,
    }, "".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workload", choices=["city", "tts", "logs"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--first-chunk-share", type=float)
    ap.add_argument("--tool", type=float, default=0.0, help="the tool's own time (seconds)")
    ap.add_argument("--log")
    ap.add_argument("--producer-first", type=float, default=0.0)
    ap.add_argument("--producer-end", type=float, default=0.0)
    ap.add_argument("--jobs", type=int, default=64)
    ap.add_argument("--output", help="write the output every variant must print here")
    args = ap.parse_args()
    rec, out = {"city": city, "tts": tts, "logs": logs}[args.workload](args)
    rec["ideal_ttfo_speedup"] = rec["seq_ttfo"] / rec["ttfo"] if rec["ttfo"] else None
    rec["ideal_end_speedup"] = rec["seq_end"] / rec["end"] if rec["end"] else None
    if args.output:
        with open(args.output, "w") as fh:
            fh.write(out)
    print(json.dumps(rec))


if __name__ == "__main__":
    main()
