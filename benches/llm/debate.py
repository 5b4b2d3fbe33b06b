#!/usr/bin/env python3
"""Multi-agent debate, hand-written with asyncio (the twin of debate.sp).

Four agents answer at once; in each of three rounds all agents answer again at once,
each seeing its own previous answer and the others'; then a judge. Reads
OPENAI_BASE_URL (and OPENAI_API_KEY, if set).
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
QUESTION = "Which city is the capital of Australia? Options: Canberra, Sydney, Melbourne, Perth."
AGENTS = 4
ROUNDS = 3


async def first_answer(i):
    return await llm(
        MODEL,
        f"You are agent {i} in a debate. {QUESTION}\nGive your answer as 'Answer: <option>', then your argument in two sentences.",
    )


async def next_answer(i, rnd, own, others):
    return await llm(
        MODEL,
        f"You are agent {i} in a debate, round {rnd}. {QUESTION}\nYour previous answer:\n{own}"
        "\nThe other agents said:\n" + "".join(o + "\n" for o in others)
        + "Considering their arguments, give your updated answer as 'Answer: <option>', then your argument in two sentences.",
    )


async def run():
    answers = await asyncio.gather(*(first_answer(i) for i in range(AGENTS)))
    for rnd in range(1, ROUNDS + 1):
        answers = await asyncio.gather(
            *(next_answer(i, rnd, answers[i], [a for k, a in enumerate(answers) if k != i]) for i in range(AGENTS))
        )
    verdict = await llm(
        MODEL,
        f"Summarize the debate and give the final answer as 'Final answer: <option>'. {QUESTION}"
        "\nThe agents' last answers:\n" + "".join(a + "\n" for a in answers),
    )
    return "".join(f"agent {i}: {a}\n" for i, a in enumerate(answers)) + verdict


async def main():
    global session
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        print(await run())


if __name__ == "__main__":
    asyncio.run(main())
