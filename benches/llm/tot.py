#!/usr/bin/env python3
"""Tree of thoughts, hand-written with asyncio (the twin of tot.sp).

Beam search of depth 3 and width 5: for every state of the beam, one "propose" call,
then (as soon as that state's proposals are in) one "value" call per new candidate;
the best five candidates are the next beam. Reads OPENAI_BASE_URL (and
OPENAI_API_KEY, if set).
"""

import asyncio
import os

import aiohttp

BASE = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
KEY = os.environ.get("OPENAI_API_KEY")
session = None


async def chat(body):
    headers = {"Authorization": f"Bearer {KEY}"} if KEY else {}
    async with session.post(f"{BASE}/chat/completions", json=body, headers=headers) as r:
        r.raise_for_status()
        return await r.json()


async def ask(model, prompt):
    reply = await chat({"model": model, "messages": [{"role": "user", "content": prompt}]})
    return reply["choices"][0]["message"]["content"]


asked = {}


def llm(model, prompt):
    """The reply to one user message (awaitable). Each distinct (model, prompt) is asked
    once per run and shared, as Spindle shares a call with the same arguments."""
    if (model, prompt) not in asked:
        asked[(model, prompt)] = asyncio.ensure_future(ask(model, prompt))
    return asked[(model, prompt)]


MODEL = "gpt-4o-mini"
TASK = "Use the numbers 4 9 10 13 and + - * / to obtain 24."
WIDTH = 5
DEPTH = 3


async def propose(state):
    prompt = f"Task: {TASK}\nSteps so far: {state}\nPropose possible next steps, one per line."
    text = await llm(MODEL, prompt)
    return [line.strip() for line in text.splitlines() if line.strip()]


async def value(state):
    prompt = (
        f"Task: {TASK}\nSteps so far: {state}\n"
        "How likely is it that these steps lead to 24? Answer with a score from 1 to 10, a single number."
    )
    try:
        return int((await llm(MODEL, prompt)).strip())
    except ValueError:
        return 0


def extend(state, step):
    return step if state == "" else f"{state}; {step}"


async def expand(state):
    candidates = [extend(state, s) for s in await propose(state)]
    scores = await asyncio.gather(*(value(c) for c in candidates))
    return list(zip(scores, candidates))


async def search_step(beam):
    groups = await asyncio.gather(*(expand(s) for s in beam))
    scored = [p for g in groups for p in g]
    scored.sort(key=lambda p: -p[0])  # stable: ties keep their order
    return scored[:WIDTH]


async def run():
    beam = [""]
    for d in range(DEPTH):
        best = await search_step(beam)
        beam = [c for _, c in best]
    return "".join(f"{s}  {c}\n" for s, c in best)


async def main():
    global session
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        print(await run())


if __name__ == "__main__":
    asyncio.run(main())
