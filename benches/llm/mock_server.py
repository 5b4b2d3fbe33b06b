#!/usr/bin/env python3
"""An OpenAI-compatible mock server for the LLM benchmarks of issue 27.

    python3 mock_server.py --port 0 --seed 1 --workload tot --scale 0.1 [--log FILE]

prints the port it listens on (on 127.0.0.1) as the first line of standard output, then
serves until SIGINT or SIGTERM:

- `POST /v1/chat/completions`: answers after a latency drawn from a seeded lognormal
  distribution, with a reply whose text is deterministic and useful to the workload
  (a score prompt gets a number, a "list places" prompt gets lines of places, a debate
  prompt gets an answer and an argument), `usage` and `finish_reason`. A request with
  `"stream": true` is answered with server-sent events as OpenAI sends them (see
  "Streaming" below).
- `POST /v1/embeddings`: a deterministic unit vector per input, after its latency.
- `GET /v1/models`: the models of the profiles.

Everything a reply is (its latency, its text, its token counts) is a function of the
server's seed and of the request's canonical key: model, messages (role and text),
temperature (absent = 1.0), top_p (absent = 1.0), seed (absent = none) and a sample
index if the request carries one (`sample`, or `metadata.sample`). So the same request
gets the same latency and text from every client, in every run, and the critical-path
tool (`critpath.py`) imports `plan_chat` / `plan_embeddings` from here to replay a
workload on a virtual clock with exactly the latencies the server would use.

Streaming. The reply's text is cut into pieces (a word with the spaces before it, as
tokens go; `chunk_chars` cuts pieces of that many characters instead), sent as
`chat.completion.chunk` events: a first event with only the role, one per piece, one
with the finish reason, one with the usage if the request asked for it
(`stream_options.include_usage`), then `data: [DONE]`. The first piece comes after the
first-chunk latency, the next ones one chunk interval apart. By default both come from
the workload's latency (the one the request would wait for unstreamed, so the last
piece arrives when the whole reply would have): the first-chunk latency is
`--first-chunk-share` (default 0.3, or the kind's `STREAM_SHARE`) of it, and the rest
is spread evenly over the remaining pieces; `plan_chat` returns them
(`first_chunk`, `chunk_interval`, `pieces`) with the other draws, and they are scaled
by `--scale` like every latency. Fixed values, in seconds and not scaled, replace
them: `--first-chunk S` / `--chunk-interval S` for every request, or per request the
body fields `mock_first_chunk`, `mock_chunk_interval`, `mock_chunk_chars` (top level
or in `metadata`) or the headers `x-mock-first-chunk`, `x-mock-chunk-interval`,
`x-mock-chunk-chars`. For tests of clients, `mock_drop_after` / `x-mock-drop-after: K`
closes the connection in the middle of the body after K pieces, and
`mock_malformed_after` / `x-mock-malformed-after: K` sends an event that is not JSON
after K pieces.

Only the Python standard library is used. HTTP/1.1 with keep-alive, request bodies
with Content-Length (or chunked), any number of connections at once (the open-file
limit is raised to its hard limit; the listen backlog is 4096).
"""

import argparse
import asyncio
import hashlib
import json
import math
import os
import re
import signal
import statistics
import sys
import time

# ---------------------------------------------------------------------------------------
# Latency profiles: for each workload, for each kind of call, (mean seconds, sigma) of a
# lognormal distribution (sigma is the standard deviation of the underlying normal; the
# mean given is the distribution's mean, mu = ln(mean) - sigma^2 / 2). The means are
# chosen so that the workload's sequential sum of latencies is about what its paper
# reports for the sequential program, with the call counts our versions make; the
# resulting critical paths (critpath.py) give ideal speedups near the papers' reported
# ones. `--scale F` multiplies every latency.
# ---------------------------------------------------------------------------------------

PROFILES = {
    # Tree of thoughts. PopPy §2.2 (poppy-opportunistic-python.txt line 97): "it takes 142
    # seconds, out of which 135 seconds are spent waiting for LLM calls", BEAM_WIDTH 5
    # (line 344), and 23 s with PopPy, 6.1x (line 120). Our search: depth 3, beam 5,
    # 4-6 proposals per state (one propose call per state, one value call per
    # candidate): about 11 propose calls and 65 value calls. A proposal (several lines
    # of output) takes longer than a value (one number): 4.5 s and 1.45 s on average,
    # about 135 s in all. (OPAL Table 1: 49.29 s sequential, 7.99 s OPAL, 6.2x; Epic
    # Fig. 12: 118.16 s and 24.60 s, 4.8x; same shape, other sizes.)
    "tot": {
        "tot_propose": (4.5, 0.35),
        "tot_value": (1.45, 0.45),
        "default": (1.5, 0.4),
    },
    # Fact-check panel. Epic §5.2 (epic-opportunistic-lambda-calculus-llm.txt line 619):
    # fc_panel, five samples of a tool-using fact checker for one fact, 14.91 s
    # sequential and 4.66 s opportunistic (3.2x): about 3 s per checker, i.e. two or
    # three GPT-3.5 turns of about 1.2 s and one or two Wikipedia lookups (search, then
    # summary: two HTTP requests, line 594) of about 0.45 s. OPAL
    # (opal-*.txt Table 1, line 540) checks several facts: 44.53 s sequential, 10.47 s
    # OPAL (4.3x). Our panel has three claims (35 model turns of 1.2 s on average, and
    # the lookups, each topic once): about 45 s sequential too.
    "factcheck": {
        "fc_judge": (1.2, 0.4),
        "wiki": (0.45, 0.3),
        "default": (1.0, 0.4),
    },
    # Skeleton of thought. PopPy Table 1 (line 295): SoT takes 6 s in Python (gpt-4o-
    # mini). One skeleton call (1.2 s) and one expansion per point (5-7 points, 0.8 s).
    "sot": {
        "sot_skeleton": (1.2, 0.3),
        "sot_expand": (0.8, 0.4),
        "default": (0.8, 0.4),
    },
    # Multi-agent debate. PopPy Table 1 (line 293): DAE (Diverse Agent Entropy, several
    # agents debating, line 305) takes 58 s in Python. Ours: 4 agents answer, then 3
    # rounds of 4 answers, then a judge: 17 calls of 3.4 s on average (answers with
    # arguments), 58 s.
    "debate": {
        "debate_agent": (3.4, 0.35),
        "debate_judge": (3.4, 0.35),
        "default": (3.4, 0.35),
    },
    # City excursions. OPAL §2 (opal-*.txt line 96): "each API call takes about 4
    # seconds to run, and the whole program takes about 51 seconds" (about ten cities
    # and one list call: 11 calls, 4.6 s each on average); OPAL brings it to 9.2 s
    # (5.5x, with streaming). Ours chains two calls per place (a description, then a
    # plan from it) and embeds each description (embeddings answer in about 0.3 s).
    "city": {
        "city_places": (4.6, 0.3),
        "city_describe": (4.6, 0.3),
        "city_plan": (4.6, 0.3),
        "embedding": (0.3, 0.3),
        "default": (4.6, 0.3),
    },
    # Anything else (tests, examples): about a second.
    "default": {
        "default": (1.0, 0.4),
        "embedding": (0.2, 0.3),
    },
}


# The share of a chat call's latency before its first streamed piece (the time to the
# first token), by kind of call; the rest of the latency is spread over the pieces.
# A short answer (a number) is mostly waiting; a long one mostly generating.
STREAM_SHARE = {
    "tot_value": 0.8,
    "default": 0.3,
}


def profile_for(workload):
    if workload == "all":
        merged = {}
        for name, prof in PROFILES.items():
            for kind, v in prof.items():
                if kind != "default" or name == "default":
                    merged.setdefault(kind, v)
        return merged
    return PROFILES.get(workload, PROFILES["default"])


# ---------------------------------------------------------------------------------------
# Canonical keys and deterministic draws
# ---------------------------------------------------------------------------------------


def content_text(content):
    """The text of a message's content (a string, or a list of text parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content)


def sample_index(body):
    for holder in (body, body.get("metadata") or {}, body.get("extra_body") or {}):
        if isinstance(holder, dict):
            for f in ("sample", "sample_index"):
                if holder.get(f) is not None:
                    return holder[f]
    return None


def _num(x, default):
    if x is None:
        return default
    try:
        return float(x)
    except (TypeError, ValueError):
        return default


def canonical_chat(body):
    """What identifies a chat request: the fields that change which sample is drawn."""
    msgs = [[m.get("role", ""), content_text(m.get("content"))] for m in body.get("messages", [])]
    return {
        "model": body.get("model", ""),
        "messages": msgs,
        "temperature": _num(body.get("temperature"), 1.0),
        "top_p": _num(body.get("top_p"), 1.0),
        "seed": body.get("seed"),
        "sample": sample_index(body),
    }


def digest(seed, what, obj):
    data = json.dumps([seed, what, obj], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8")).digest()


class Draw:
    """A deterministic stream of uniform numbers from a digest."""

    def __init__(self, d):
        self.d = d
        self.i = 0

    def u(self):
        h = hashlib.sha256(self.d + self.i.to_bytes(4, "big")).digest()
        self.i += 1
        return (int.from_bytes(h[:8], "big") + 0.5) / 2.0**64

    def int(self, lo, hi):
        """Uniform in lo..hi inclusive."""
        return lo + min(hi - lo, int(self.u() * (hi - lo + 1)))

    def choice(self, xs):
        return xs[self.int(0, len(xs) - 1)]


_NORMAL = statistics.NormalDist()


def lognormal(u, mean, sigma):
    z = max(-3.5, min(3.5, _NORMAL.inv_cdf(u)))
    return mean * math.exp(sigma * z - sigma * sigma / 2.0)


# ---------------------------------------------------------------------------------------
# What kind of call a request is, and what the "model" answers
# ---------------------------------------------------------------------------------------

WORDS = (
    "careful evidence suggests the claim follows from a simple argument about the "
    "structure of the problem and the data we have while other readings remain possible "
    "given a closer look at the details history sources numbers context and the usual "
    "exceptions that experts mention when they explain why this matters in practice"
).split()

PLACE_A = ["Old", "Golden", "Silver", "Hidden", "Grand", "North", "River", "Stone", "Bamboo", "Lantern", "Temple", "Garden"]
PLACE_B = ["Market", "Pavilion", "Shrine", "Gardens", "Bridge", "Gate", "Museum", "Path", "Hall", "Tower", "Square", "Harbor"]


def sentence(draw, n):
    ws = [draw.choice(WORDS) for _ in range(n)]
    return " ".join(ws).capitalize() + "."


def classify(body):
    model = body.get("model", "")
    msgs = body.get("messages", [])
    system = " ".join(content_text(m.get("content")) for m in msgs if m.get("role") == "system")
    last = ""
    for m in msgs:
        if m.get("role") == "user":
            last = content_text(m.get("content"))
    if model.startswith("wiki") or last.startswith("Summarize the Wikipedia article"):
        return "wiki"
    if "fact checker" in system:
        return "fc_judge"
    if "Propose possible next steps" in last:
        return "tot_propose"
    if "score from 1 to 10" in last:
        return "tot_value"
    if "skeleton" in last and "Continue point" not in last:
        return "sot_skeleton"
    if "Continue point" in last:
        return "sot_expand"
    if "Summarize the debate" in last:
        return "debate_judge"
    if "debate" in last:
        return "debate_agent"
    if last.startswith("List ") and "places" in last:
        return "city_places"
    if last.startswith("Describe "):
        return "city_describe"
    if "Plan a half-day excursion" in last:
        return "city_plan"
    return "default"


def _last_user(msgs):
    for m in reversed(msgs):
        if m.get("role") == "user":
            return content_text(m.get("content"))
    return ""


def _first_user(msgs):
    for m in msgs:
        if m.get("role") == "user":
            return content_text(m.get("content"))
    return ""


def reply_text(kind, body, draw, seed):
    msgs = body.get("messages", [])
    last = _last_user(msgs)
    if kind == "tot_propose":
        lines = []
        for _ in range(draw.int(4, 6)):
            a, b = draw.int(1, 13), draw.int(1, 13)
            op = draw.choice(["+", "-", "*"])
            c = a + b if op == "+" else a - b if op == "-" else a * b
            lines.append(f"{a} {op} {b} = {c}")
        return "\n".join(lines)
    if kind == "tot_value":
        return str(draw.int(1, 10))
    if kind == "wiki":
        topic = last.rsplit(" on ", 1)[-1].strip() if " on " in last else last[:40]
        return f"{topic}: " + sentence(draw, 12) + " " + sentence(draw, 10)
    if kind == "fc_judge":
        # How many lookups this checker makes depends on the question and the sample
        # (not on the conversation so far), so the loop ends; the verdict leans to the
        # claim's own truth (from the claim alone) with a checker's error now and then.
        first = _first_user(msgs)
        c = canonical_chat(body)
        own = Draw(digest(seed, "fc", [c["model"], first, c["temperature"], c["seed"], c["sample"]]))
        needed = own.int(1, 2)
        done = sum(1 for m in msgs if m.get("role") == "user" and content_text(m.get("content")).startswith("Wikipedia:"))
        if done < needed:
            words = [w.strip(".,?!") for w in first.split() if w[:1].isupper()]
            topic = words[(done + 1) % len(words)] if words else "Topic"
            return f"LOOKUP: {topic}"
        truth = Draw(digest(seed, "truth", first)).u() < 0.6
        if own.u() < 0.2:
            truth = not truth
        return ("VERDICT: TRUE" if truth else "VERDICT: FALSE") + "\n" + sentence(draw, 10)
    if kind == "sot_skeleton":
        n = draw.int(5, 7)
        return "\n".join(f"{i}. {draw.choice(WORDS).capitalize()} {draw.choice(WORDS)} {draw.choice(WORDS)}" for i in range(1, n + 1))
    if kind == "sot_expand":
        return sentence(draw, 12) + " " + sentence(draw, 9)
    if kind in ("debate_agent", "debate_judge"):
        m = re.search(r"Options: ([^\n.]*)", last)
        options = [o.strip() for o in m.group(1).split(",")] if m else ["yes", "no"]
        seen = re.findall(r"Answer: (\w+)", last)
        if seen:
            counts = {}
            for a in seen:
                counts[a] = counts.get(a, 0) + 1
            best = max(counts.values())
            leaders = [a for a in options if counts.get(a) == best] or [a for a in seen if counts[a] == best]
            ans = leaders[0] if len(leaders) == 1 else draw.choice(leaders)
            if kind == "debate_agent" and draw.u() < 0.15:
                ans = draw.choice(options)
        else:
            ans = draw.choice(options)
        if kind == "debate_judge":
            return f"Final answer: {ans}. " + sentence(draw, 14)
        return f"Answer: {ans}. " + sentence(draw, 16) + " " + sentence(draw, 10)
    if kind == "city_places":
        m = re.search(r"List (\d+)", last)
        n = int(m.group(1)) if m else 8
        names = []
        while len(names) < n:
            name = f"{draw.choice(PLACE_A)} {draw.choice(PLACE_B)}"
            if name not in names:
                names.append(name)
        return "\n".join(names)
    if kind == "city_describe":
        return sentence(draw, 14) + " " + sentence(draw, 12)
    if kind == "city_plan":
        return " ".join(f"{i}) " + sentence(draw, 8) for i in range(1, 4))
    return "Mock reply: " + sentence(draw, 10)


def stream_pieces(text, chunk_chars=None):
    """The pieces a reply is streamed in: a word with the white space before it (about
    a token), or `chunk_chars` characters each. Joined, they are the text."""
    if chunk_chars:
        n = max(1, int(chunk_chars))
        return [text[i : i + n] for i in range(0, len(text), n)]
    return re.findall(r"\s*\S+|\s+", text)


def count_tokens(text):
    # About four characters a token, as OpenAI's rule of thumb.
    return max(1, (len(text) + 3) // 4)


def plan_chat(body, workload="all", seed=0):
    """Everything about the reply to a chat request, before scaling:
    {"kind", "latency" (seconds), "choices": [(text, finish_reason)], "usage"}."""
    prof = profile_for(workload)
    kind = classify(body)
    canon = canonical_chat(body)
    key = digest(seed, "chat", canon)
    draw = Draw(key)
    mean, sigma = prof.get(kind, prof.get("default", (1.0, 0.4)))
    latency = lognormal(draw.u(), mean, sigma)
    n = int(body.get("n") or 1)
    choices = []
    out_tokens = 0
    for i in range(n):
        d = Draw(digest(seed, "text", [canon, i]))
        text = reply_text(kind, body, d, seed)
        fmt = body.get("response_format") or {}
        if isinstance(fmt, dict) and fmt.get("type") in ("json_object", "json_schema"):
            text = json.dumps({"answer": text})
        finish = "stop"
        stops = body.get("stop")
        if isinstance(stops, str):
            stops = [stops]
        for s in stops or []:
            if s and s in text:
                text = text[: text.index(s)]
        mt = body.get("max_tokens") or body.get("max_completion_tokens")
        if mt is not None and count_tokens(text) > int(mt):
            text = text[: max(0, int(mt)) * 4]
            finish = "length"
        out_tokens += count_tokens(text)
        choices.append((text, finish))
    prompt_tokens = sum(count_tokens(content_text(m.get("content"))) + 4 for m in body.get("messages", []))
    # Streaming: the first piece after a share of the latency, the last one at the
    # latency (so a streamed reply ends when the whole reply would have come).
    pieces = [stream_pieces(text) for text, _ in choices]
    most = max([len(p) for p in pieces] or [0])
    first_chunk = latency * STREAM_SHARE.get(kind, STREAM_SHARE["default"])
    chunk_interval = (latency - first_chunk) / (most - 1) if most > 1 else 0.0
    return {
        "kind": kind,
        "latency": latency,
        "choices": choices,
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": out_tokens, "total_tokens": prompt_tokens + out_tokens},
        "pieces": pieces,
        "first_chunk": first_chunk,
        "chunk_interval": chunk_interval,
    }


EMBED_DIM = 16


def embedding_inputs(body):
    inp = body.get("input", "")
    return inp if isinstance(inp, list) else [inp]


def plan_embeddings(body, workload="all", seed=0):
    prof = profile_for(workload)
    inputs = [x if isinstance(x, str) else json.dumps(x) for x in embedding_inputs(body)]
    model = body.get("model", "")
    mean, sigma = prof.get("embedding", (0.2, 0.3))
    latency = lognormal(Draw(digest(seed, "embed-latency", [model, inputs])).u(), mean, sigma)
    vectors = []
    for text in inputs:
        d = Draw(digest(seed, "embed", [model, text]))
        v = [d.u() * 2.0 - 1.0 for _ in range(EMBED_DIM)]
        norm = math.sqrt(sum(x * x for x in v))
        # Four decimals: the same doubles however a client parses them.
        vectors.append([round(x / norm, 4) for x in v])
    tokens = sum(count_tokens(t) for t in inputs)
    return {"kind": "embedding", "latency": latency, "vectors": vectors, "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}


def request_key(path, body):
    """A short name for a request's canonical form (the same for the same request from
    any client): what the log and critpath.py match requests by."""
    if path.endswith("embeddings"):
        what = ["embeddings", body.get("model", ""), embedding_inputs(body)]
    else:
        what = ["chat", canonical_chat(body)]
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def chat_response(body, plan, counter=0):
    return {
        "id": f"chatcmpl-mock-{counter}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", ""),
        "choices": [
            {"index": i, "message": {"role": "assistant", "content": text}, "logprobs": None, "finish_reason": finish}
            for i, (text, finish) in enumerate(plan["choices"])
        ],
        "usage": plan["usage"],
    }


def chunk_event(body, counter, created, choices, usage=None, with_usage=False):
    """One `chat.completion.chunk` event's JSON: `choices` is [(index, delta,
    finish_reason)]."""
    obj = {
        "id": f"chatcmpl-mock-{counter}",
        "object": "chat.completion.chunk",
        "created": created,
        "model": body.get("model", ""),
        "system_fingerprint": "fp_mock",
        "choices": [{"index": i, "delta": d, "logprobs": None, "finish_reason": f} for i, d, f in choices],
    }
    if with_usage:
        obj["usage"] = usage
    return obj


def stream_option(body, headers, name, convert=float):
    """A per-request streaming setting: body field `mock_<name>` (top level or in
    `metadata`), else header `x-mock-<name>` (with dashes); None when absent or bad."""
    for holder in (body, body.get("metadata") or {}):
        if isinstance(holder, dict) and holder.get("mock_" + name) is not None:
            try:
                return convert(holder["mock_" + name])
            except (TypeError, ValueError):
                return None
    v = headers.get("x-mock-" + name.replace("_", "-"))
    if v is not None:
        try:
            return convert(v)
        except ValueError:
            return None
    return None


def embeddings_response(body, plan):
    return {
        "object": "list",
        "data": [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(plan["vectors"])],
        "model": body.get("model", ""),
        "usage": plan["usage"],
    }


# ---------------------------------------------------------------------------------------
# The HTTP server
# ---------------------------------------------------------------------------------------

REASONS = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed", 413: "Payload Too Large"}


class Mock:
    def __init__(self, args):
        self.args = args
        self.seed = args.seed
        self.workload = args.workload
        self.scale = args.scale
        self.t0 = time.time()
        self.counter = 0
        self.in_flight = 0
        self.peak_in_flight = 0
        self.log = open(args.log, "a", buffering=1) if args.log else None

    def write_log(self, rec):
        if self.log:
            self.log.write(json.dumps(rec) + "\n")

    async def handle(self, reader, writer):
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, ConnectionError):
                    return
                except asyncio.LimitOverrunError:
                    await self.send(writer, 413, {"error": {"message": "headers too large"}}, close=True)
                    return
                arrival = time.time()
                lines = head.decode("latin-1").split("\r\n")
                try:
                    method, target, version = lines[0].split(" ", 2)
                except ValueError:
                    await self.send(writer, 400, {"error": {"message": "bad request line"}}, close=True)
                    return
                headers = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                if headers.get("expect", "").lower() == "100-continue":
                    writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                if headers.get("transfer-encoding", "").lower() == "chunked":
                    body = b""
                    while True:
                        size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                        if size == 0:
                            await reader.readuntil(b"\r\n")
                            break
                        body += await reader.readexactly(size)
                        await reader.readexactly(2)
                else:
                    body = await reader.readexactly(int(headers.get("content-length", "0") or 0))
                close = headers.get("connection", "").lower() == "close" or version == "HTTP/1.0"
                await self.route(writer, method, target.split("?", 1)[0], body, arrival, close, headers)
                if close:
                    return
        except (ConnectionError, asyncio.IncompleteReadError):
            return
        finally:
            try:
                writer.close()
            except Exception:
                pass

    async def route(self, writer, method, path, raw, arrival, close, headers=None):
        headers = headers or {}
        path = path.rstrip("/")
        if path.endswith("/models") and method == "GET":
            models = sorted({"gpt-3.5-turbo", "gpt-4o-mini", "wiki-lookup", "text-embedding-3-small"})
            return await self.send(writer, 200, {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "mock"} for m in models]}, close=close)
        kind_of = None
        if path.endswith("/chat/completions"):
            kind_of = "chat"
        elif path.endswith("/embeddings"):
            kind_of = "embeddings"
        if kind_of is None:
            return await self.send(writer, 404, {"error": {"message": f"no route {method} {path}", "type": "invalid_request_error"}}, close=close)
        if method != "POST":
            return await self.send(writer, 405, {"error": {"message": "use POST"}}, close=close)
        try:
            body = json.loads(raw)
            if not isinstance(body, dict):
                raise ValueError("not an object")
        except ValueError as e:
            return await self.send(writer, 400, {"error": {"message": f"invalid JSON body: {e}", "type": "invalid_request_error"}}, close=close)
        self.counter += 1
        rid = self.counter
        plan = plan_chat(body, self.workload, self.seed) if kind_of == "chat" else plan_embeddings(body, self.workload, self.seed)
        if kind_of == "chat" and body.get("stream") is True:
            return await self.stream(writer, path, body, headers, plan, rid, arrival, close)
        latency = plan["latency"] * self.scale
        self.in_flight += 1
        self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            await asyncio.sleep(latency)
        finally:
            self.in_flight -= 1
        resp = chat_response(body, plan, rid) if kind_of == "chat" else embeddings_response(body, plan)
        reply_t = time.time()
        await self.send(writer, 200, resp, close=close)
        self.write_log(self.record(rid, path, body, kind_of, plan, arrival, reply_t, latency))

    def record(self, rid, path, body, kind_of, plan, arrival, reply_t, latency):
        """The log's line for one request."""
        rec = {
            "id": rid,
            "path": path,
            "model": body.get("model"),
            "kind": plan["kind"],
            "arrival": round(arrival, 6),
            "reply": round(reply_t, 6),
            "latency": round(latency, 6),
            "usage": plan["usage"],
            "key": request_key(path, body),
        }
        if kind_of == "chat":
            c = canonical_chat(body)
            last = _last_user(body.get("messages", []))
            rec["prompt"] = last if len(last) <= 120 else last[:50] + " ... " + last[-60:]
            rec["sample"] = c["sample"]
            rec["seed"] = c["seed"]
            rec["extra_fields"] = sorted(k for k in body if k not in ("model", "messages"))
        return rec

    async def stream(self, writer, path, body, headers, plan, rid, arrival, close):
        """Answers a chat request with `"stream": true`: server-sent events, one HTTP
        chunk each, timed as the module's documentation says."""
        chars = stream_option(body, headers, "chunk_chars", int)
        pieces = [stream_pieces(text, chars) for text, _ in plan["choices"]] if chars else plan["pieces"]
        most = max([len(p) for p in pieces] or [0])
        first = stream_option(body, headers, "first_chunk")
        if first is None:
            first = self.args.first_chunk
        if first is None:
            share = self.args.first_chunk_share
            if share is None:
                first = plan["first_chunk"] * self.scale
            else:
                first = plan["latency"] * share * self.scale
        every = stream_option(body, headers, "chunk_interval")
        if every is None:
            every = self.args.chunk_interval
        if every is None:
            rest = max(0.0, plan["latency"] * self.scale - first)
            every = rest / (most - 1) if most > 1 else 0.0
        drop_after = stream_option(body, headers, "drop_after", int)
        malformed_after = stream_option(body, headers, "malformed_after", int)
        opts = body.get("stream_options") or {}
        with_usage = isinstance(opts, dict) and opts.get("include_usage") is True
        created = int(time.time())

        head = (
            "HTTP/1.1 200 OK\r\n"
            "Content-Type: text/event-stream\r\n"
            "Cache-Control: no-cache\r\n"
            "Transfer-Encoding: chunked\r\n"
            f"Connection: {'close' if close else 'keep-alive'}\r\n\r\n"
        ).encode("latin-1")
        writer.write(head)
        await writer.drain()

        async def send(data):
            event = f"data: {data}\n\n".encode("utf-8")
            writer.write(f"{len(event):x}\r\n".encode("latin-1") + event + b"\r\n")
            await writer.drain()

        def event(choices, usage=None):
            return json.dumps(chunk_event(body, rid, created, choices, usage, with_usage))

        self.in_flight += 1
        self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        first_t = None
        dropped = False
        try:
            await send(event([(i, {"role": "assistant", "content": ""}, None) for i in range(len(pieces))]))
            await asyncio.sleep(first)
            for k in range(most + 1):
                if drop_after is not None and k == drop_after:
                    dropped = True
                    break
                if malformed_after is not None and k == malformed_after:
                    await send('{"choices": [oops')
                if k == most:
                    break
                if k > 0:
                    await asyncio.sleep(every)
                await send(event([(i, {"content": p[k]}, None) for i, p in enumerate(pieces) if k < len(p)]))
                if first_t is None:
                    first_t = time.time()
            if not dropped:
                await send(event([(i, {}, finish) for i, (_, finish) in enumerate(plan["choices"])]))
                if with_usage:
                    await send(json.dumps(chunk_event(body, rid, created, [], plan["usage"], True)))
                await send("[DONE]")
                writer.write(b"0\r\n\r\n")
                await writer.drain()
        finally:
            self.in_flight -= 1
        reply_t = time.time()
        # `latency` stays the planned one (what the reply would wait for unstreamed).
        rec = self.record(rid, path, body, "chat", plan, arrival, reply_t, plan["latency"] * self.scale)
        rec["stream"] = True
        rec["duration"] = round(reply_t - arrival, 6)
        rec["pieces"] = most
        rec["first_chunk"] = round(first_t - arrival, 6) if first_t is not None else None
        rec["chunk_interval"] = round(every, 6)
        if dropped:
            rec["dropped"] = True
        self.write_log(rec)
        if dropped:
            # In the middle of the body: the client sees a broken connection.
            raise ConnectionResetError("dropped as asked")

    async def send(self, writer, status, obj, close=False):
        data = json.dumps(obj).encode("utf-8")
        head = (
            f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}\r\n"
            f"Content-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n"
            f"Connection: {'close' if close else 'keep-alive'}\r\n\r\n"
        ).encode("latin-1")
        writer.write(head + data)
        await writer.drain()


def raise_nofile():
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY:
            hard = 1 << 20
        if soft < hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ImportError, ValueError, OSError):
        pass


async def serve(args):
    mock = Mock(args)
    server = await asyncio.start_server(mock.handle, args.host, args.port, backlog=4096, limit=1 << 24)
    port = server.sockets[0].getsockname()[1]
    print(port, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    async with server:
        await stop.wait()
    print(f"mock: {mock.counter} requests, peak in flight {mock.peak_in_flight}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0: any free port (printed on the first line)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workload", "--profile", default="all", help="latency profile: " + ", ".join(sorted(PROFILES)) + ", all")
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies every latency")
    ap.add_argument("--log", help="append one JSON line per request (arrival and reply times)")
    ap.add_argument("--first-chunk", type=float, help="streamed replies: seconds before the first piece (not scaled; default: from the workload)")
    ap.add_argument("--chunk-interval", type=float, help="streamed replies: seconds between pieces (not scaled; default: from the workload)")
    ap.add_argument("--first-chunk-share", type=float, help="streamed replies: the share of the latency before the first piece (default: STREAM_SHARE)")
    args = ap.parse_args()
    if args.workload != "all" and args.workload not in PROFILES:
        ap.error(f"unknown workload {args.workload!r}")
    raise_nofile()
    try:
        asyncio.run(serve(args))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
