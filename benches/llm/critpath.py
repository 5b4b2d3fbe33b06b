#!/usr/bin/env python3
"""The exact critical path and sequential sum of a workload, on a virtual clock.

    python3 critpath.py NAME [--seed N] [--json]

imports the asyncio twin NAME.py, replaces its `chat` (and `embed_request`, if it has
one) by a call that asks mock_server.py what it would answer to that request (the very
function the server uses) and sleeps the request's latency, and runs the twin's `run()`
on an event loop whose clock jumps instead of sleeping: when nothing is ready, the
loop's selector advances virtual time by the timeout to the next timer. So the twin's
structure (what waits for what; asyncio.gather where the twin gathers) is replayed with
unlimited parallelism and no computing time: the virtual time at the end is the
critical path (at --scale 1; with --scale F every latency, hence the critical path and
the sum, is F times as long). Also gives the sum of latencies (the sequential run's
time), the number of calls, and the output, which the real runs must print.
"""

import argparse
import asyncio
import hashlib
import importlib
import json
import os
import selectors
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ beside the benchmarks

import mock_server  # noqa: E402


class VirtualSelector(selectors.DefaultSelector):
    """A selector that never blocks: waiting `timeout` seconds moves the clock instead."""

    def __init__(self):
        super().__init__()
        self.now = 0.0

    def select(self, timeout=None):
        ready = super().select(0)
        if ready:
            return ready
        if timeout is None:
            raise RuntimeError("virtual clock: the workload waits for something that is not a timer")
        if timeout > 0:
            self.now += timeout
        return []


class VirtualLoop(asyncio.SelectorEventLoop):
    def __init__(self):
        self._vsel = VirtualSelector()
        super().__init__(self._vsel)
        self._clock_resolution = 1e-9

    def time(self):
        return self._vsel.now


def replay(name, seed=0, workload=None):
    mod = importlib.import_module(name)
    workload = workload or name
    calls = []

    async def vchat(body):
        body = json.loads(json.dumps(body))  # what goes over the wire
        plan = mock_server.plan_chat(body, workload, seed)
        start = asyncio.get_running_loop().time()
        await asyncio.sleep(plan["latency"])
        calls.append({"kind": plan["kind"], "start": start, "latency": plan["latency"], "usage": plan["usage"],
                      "key": mock_server.request_key("chat/completions", body)})
        return mock_server.chat_response(body, plan, len(calls))

    async def vembed(body):
        body = json.loads(json.dumps(body))
        plan = mock_server.plan_embeddings(body, workload, seed)
        start = asyncio.get_running_loop().time()
        await asyncio.sleep(plan["latency"])
        calls.append({"kind": plan["kind"], "start": start, "latency": plan["latency"], "usage": plan["usage"],
                      "key": mock_server.request_key("embeddings", body)})
        return mock_server.embeddings_response(body, plan)

    mod.chat = vchat
    if hasattr(mod, "embed_request"):
        mod.embed_request = vembed
    loop = VirtualLoop()
    try:
        out = loop.run_until_complete(mod.run())
        cp = loop.time()
    finally:
        loop.close()
    # `print(out)` in the twin: the output the real runs must show.
    output = out + "\n"
    kinds = {}
    for c in calls:
        k = kinds.setdefault(c["kind"], [0, 0.0])
        k[0] += 1
        k[1] += c["latency"]
    total = sum(c["latency"] for c in calls)
    return {
        "workload": name,
        "seed": seed,
        "critical_path": cp,
        "sum": total,
        "ideal_speedup": total / cp if cp > 0 else float("nan"),
        "calls": len(calls),
        "tokens_in": sum(c["usage"].get("prompt_tokens", 0) for c in calls),
        "tokens_out": sum(c["usage"].get("completion_tokens", 0) for c in calls),
        "by_kind": {k: {"calls": v[0], "sum": round(v[1], 3)} for k, v in sorted(kinds.items())},
        "replay": [{"key": c["key"], "kind": c["kind"], "start": c["start"], "latency": c["latency"]} for c in calls],
        "output": output,
        "output_sha256": hashlib.sha256(output.encode("utf-8")).hexdigest(),
    }


def main():
    ap = argparse.ArgumentParser(description="critical path of a workload on a virtual clock")
    ap.add_argument("name")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workload", help="latency profile (default: the workload's name)")
    ap.add_argument("--json", action="store_true", help="one JSON object on standard output")
    ap.add_argument("--output", help="write the expected output to this file")
    args = ap.parse_args()
    r = replay(args.name, args.seed, args.workload)
    if args.output:
        with open(args.output, "w") as f:
            f.write(r["output"])
    if args.json:
        print(json.dumps(r))
    else:
        print(f"{r['workload']}: {r['calls']} calls, critical path {r['critical_path']:.2f} s, "
              f"sum {r['sum']:.2f} s, ideal speedup {r['ideal_speedup']:.2f}x")
        for k, v in r["by_kind"].items():
            print(f"  {k}: {v['calls']} calls, {v['sum']:.2f} s")


if __name__ == "__main__":
    main()
