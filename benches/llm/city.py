#!/usr/bin/env python3
"""City excursions, hand-written with asyncio (the twin of city.sp).

The places are listed; then for every place at once: its description, then (at once)
a plan from the description and the description's embedding; the excursions are shown
best match first for the traveller's interests. Reads OPENAI_BASE_URL (and
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


async def embed_request(body):
    headers = {"Authorization": f"Bearer {KEY}"} if KEY else {}
    async with session.post(f"{BASE}/embeddings", json=body, headers=headers) as r:
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


async def embedding(model, text):
    reply = await embed_request({"model": model, "input": text})
    return reply["data"][0]["embedding"]


embedded = {}


def embed(model, text):
    """A text's embedding (awaitable), asked once per distinct (model, text)."""
    if (model, text) not in embedded:
        embedded[(model, text)] = asyncio.ensure_future(embedding(model, text))
    return embedded[(model, text)]


MODEL = "gpt-3.5-turbo"
EMBED_MODEL = "text-embedding-3-small"
CITY = "Kyoto"
INTERESTS = "quiet gardens, old temples and local food"


def dot(a, b):
    acc = 0.0
    for x, y in zip(a, b):
        acc = acc + x * y
    return acc


async def excursion(place, taste):
    description = await llm(MODEL, f"Describe {place} in {CITY} in two sentences.")
    steps, vector = await asyncio.gather(
        llm(MODEL, f"Here is a description of {place} in {CITY}:\n{description}\nPlan a half-day excursion there in three steps."),
        embed(EMBED_MODEL, description),
    )
    return place, description, steps, dot(await taste, vector)


async def run():
    taste = embed(EMBED_MODEL, INTERESTS)  # asked now, awaited by each excursion
    listing = await llm(MODEL, f"List 10 places to visit in {CITY}, one per line, names only.")
    places = [line.strip() for line in listing.splitlines() if line.strip()]
    excursions = await asyncio.gather(*(excursion(p, taste) for p in places))
    excursions = sorted(excursions, key=lambda e: -e[3])  # stable: ties keep their order
    return "\n".join(f"## {p}\n{d}\n{s}\n" for p, d, s, _ in excursions)


async def main():
    global session
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        print(await run())


if __name__ == "__main__":
    asyncio.run(main())
