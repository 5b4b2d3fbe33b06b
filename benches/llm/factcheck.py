#!/usr/bin/env python3
"""Fact-check panel, hand-written with asyncio (the twin of factcheck.sp).

Each claim goes to five fact checkers at once; a checker is a tool-using conversation
(LOOKUP: topic -> a Wikipedia summary in the conversation -> ... -> VERDICT). The
claims are checked at once too. Reads OPENAI_BASE_URL (and OPENAI_API_KEY, if set).
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


MODEL = "gpt-3.5-turbo"
JUDGES = 5
MAX_LOOKUPS = 3
CLAIMS = [
    "the Eiffel Tower in Paris was completed in 1889",
    "the Great Wall of China can be seen from the Moon with the naked eye",
    "Mount Everest in Nepal is the highest mountain above sea level",
]
INSTRUCTIONS = {
    "role": "system",
    "content": "You are a rigorous fact checker. To consult Wikipedia, answer LOOKUP: followed by a topic. "
    "When you are sure, answer VERDICT: TRUE or VERDICT: FALSE, then one sentence of explanation.",
}


async def wikipedia(topic):
    return await llm("wiki-lookup", f"Summarize the Wikipedia article on {topic}")


async def check(claim, j):
    # Checker j is one of five samples of the same conversation: five requests, the
    # same on the wire (Spindle's `sample j` keeps them apart but is not sent). The
    # lookups go through `llm`, so each topic is looked up once and shared.
    conversation = [INSTRUCTIONS, {"role": "user", "content": f"Is it true that {claim}?"}]
    lookups = 0
    while True:
        reply = await chat({"model": MODEL, "messages": conversation})
        answer = reply["choices"][0]["message"]["content"]
        if answer.startswith("LOOKUP:") and lookups < MAX_LOOKUPS:
            topic = answer[7:].strip()
            summary = await wikipedia(topic)
            conversation = conversation + [
                {"role": "assistant", "content": answer},
                {"role": "user", "content": f"Wikipedia: {summary}"},
            ]
            lookups += 1
        else:
            return answer.startswith("VERDICT: TRUE")


async def panel(claim):
    verdicts = await asyncio.gather(*(check(claim, j) for j in range(JUDGES)))
    yes = sum(verdicts)
    return f"{'TRUE ' if 2 * yes > JUDGES else 'FALSE'}  {yes}/{JUDGES}  {claim}"


async def run():
    lines = await asyncio.gather(*(panel(c) for c in CLAIMS))
    return "".join(line + "\n" for line in lines)


async def main():
    global session
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        print(await run())


if __name__ == "__main__":
    asyncio.run(main())
