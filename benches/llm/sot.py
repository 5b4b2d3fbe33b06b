#!/usr/bin/env python3
"""Skeleton of thought, hand-written with asyncio (the twin of sot.sp).

One skeleton call, then every point expanded at once (asyncio.gather), then joined in
order. Reads OPENAI_BASE_URL (and OPENAI_API_KEY, if set).
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
QUESTION = "What are the most effective strategies for conflict resolution in the workplace?"


async def expand(skeleton, point):
    prompt = (
        "You're responsible for continuing the writing of one and only one point in the overall answer to the following question.\n"
        f"Question: {QUESTION}\nThe skeleton of the answer is\n{skeleton}"
        f"\nContinue point {point} in 1-2 sentences, and stop."
    )
    return (await llm(MODEL, prompt)).strip()


async def run():
    skeleton = await llm(
        MODEL,
        "You're an organizer responsible for only giving the skeleton (not the full content) for answering the question. "
        "Provide the skeleton in a list of points (numbered 1., 2., 3., etc.) to answer the question. "
        f"Each point should be very short, only 3 to 5 words.\nQuestion: {QUESTION}\nSkeleton:",
    )
    points = [line.strip() for line in skeleton.splitlines() if line.strip()]
    expansions = await asyncio.gather(*(expand(skeleton, p) for p in points))
    return "".join(f"{p} {e}\n" for p, e in zip(points, expansions))


async def main():
    global session
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        print(await run())


if __name__ == "__main__":
    asyncio.run(main())
