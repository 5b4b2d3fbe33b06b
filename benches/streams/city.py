#!/usr/bin/env python3
"""City excursions, streamed, hand-written with asyncio (the twin of city.sp).

The list of places is read as a stream of server-sent events and regrouped into
lines; as soon as a place's line is complete, that place's excursion is asked for as
a stream of its own (a task that pumps its chunks into a queue); the printer writes
each section in order, chunk by chunk as it arrives. Reads OPENAI_BASE_URL (and
OPENAI_API_KEY, if set). aiohttp for HTTP; the SSE parsing is by hand.
"""

import asyncio
import json
import os
import sys

import aiohttp

BASE = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
KEY = os.environ.get("OPENAI_API_KEY")
MODEL = "gpt-3.5-turbo"
CITY = "Kyoto"
session = None


async def llm_stream(model, prompt):
    """The reply's chunks (the non-empty `delta.content` strings), as they arrive."""
    headers = {"Authorization": f"Bearer {KEY}"} if KEY else {}
    body = {"model": model, "messages": [{"role": "user", "content": prompt}], "stream": True}
    async with session.post(f"{BASE}/chat/completions", json=body, headers=headers) as r:
        r.raise_for_status()
        async for raw in r.content:  # one line of the event stream at a time
            line = raw.decode("utf-8").rstrip("\r\n")
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                return
            for choice in json.loads(data).get("choices", []):
                text = (choice.get("delta") or {}).get("content")
                if text:
                    yield text


async def stream_lines(chunks):
    """Chunked text regrouped into lines, each once its newline has arrived."""
    acc = ""
    async for c in chunks:
        parts = c.split("\n")
        for p in parts[:-1]:
            yield acc + p
            acc = ""
        acc += parts[-1]
    if acc:
        yield acc


END = object()


async def pump(chunks, queue):
    """Runs a stream to its end in the background, handing each chunk to the queue."""
    try:
        async for c in chunks:
            queue.put_nowait(c)
        queue.put_nowait(END)
    except BaseException as e:  # the printer raises it where it reads
        queue.put_nowait(e)


async def get(queue):
    item = await queue.get()
    if isinstance(item, BaseException):
        raise item
    return item


def write(s):
    sys.stdout.write(s)
    sys.stdout.flush()


async def run():
    sections = asyncio.Queue()
    tasks = []

    async def producer():
        # A stream of streams: each place starts its own stream once its line is in.
        try:
            async for line in stream_lines(llm_stream(MODEL, f"List 10 places to visit in {CITY}, one per line, names only.")):
                place = line.strip()
                if not place:
                    continue
                q = asyncio.Queue()
                prompt = f"Plan a half-day excursion to {place} in {CITY} in three steps."
                tasks.append(asyncio.create_task(pump(llm_stream(MODEL, prompt), q)))
                sections.put_nowait((place, q))
            sections.put_nowait(END)
        except BaseException as e:
            sections.put_nowait(e)

    prod = asyncio.create_task(producer())
    while (item := await get(sections)) is not END:
        place, q = item
        write("## " + place + "\n")
        while (c := await get(q)) is not END:
            write(c)
        write("\n")
    await prod
    await asyncio.gather(*tasks)
    write("\n")


async def main():
    global session
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), timeout=aiohttp.ClientTimeout(total=None)) as session:
        await run()


if __name__ == "__main__":
    asyncio.run(main())
