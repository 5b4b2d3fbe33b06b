#!/usr/bin/env python3
"""Text to speech, streamed, hand-written with asyncio (the twin of tts.sp).

All the replies are asked for at once, each as a stream of server-sent events pumped
into its own queue; each reply is cut into sentences as its chunks arrive, and each
sentence goes to the text-to-speech tool (a subprocess) as soon as it is complete,
whichever reply it is in; the printer writes the tool's outputs in order. Reads
OPENAI_BASE_URL (and OPENAI_API_KEY, if set). aiohttp for HTTP; the SSE parsing is by
hand.
"""

import asyncio
import json
import os
import sys

import aiohttp

BASE = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
KEY = os.environ.get("OPENAI_API_KEY")
MODEL = "gpt-3.5-turbo"
TOPICS = ["the Old Market", "the Golden Pavilion", "the Stone Garden", "the Bamboo Path", "the River Bridge", "the Lantern Shrine"]
TTS = "sleep 0.2; printf 'audio: %s\\n' \"$1\""
session = None


async def llm_stream(model, prompt):
    """The reply's chunks (the non-empty `delta.content` strings), as they arrive."""
    headers = {"Authorization": f"Bearer {KEY}"} if KEY else {}
    body = {"model": model, "messages": [{"role": "user", "content": prompt}], "stream": True}
    async with session.post(f"{BASE}/chat/completions", json=body, headers=headers) as r:
        r.raise_for_status()
        async for raw in r.content:
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


async def stream_sentences(chunks):
    """Chunked text regrouped into sentences, each once its full stop has arrived."""
    acc = ""
    async for c in chunks:
        parts = c.split(".")
        for p in parts[:-1]:
            yield (acc + p + ".").strip()
            acc = ""
        acc += parts[-1]
    if acc.strip():
        yield acc.strip()


async def speak(sentence):
    proc = await asyncio.create_subprocess_exec("sh", "-c", TTS, "tts", sentence, stdout=asyncio.subprocess.PIPE)
    out, _ = await proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"tts failed with {proc.returncode}")
    return out.decode("utf-8")


END = object()


async def dispatch(topic, queue):
    """One reply: each sentence's tool starts as soon as the sentence is complete; the
    queue gets the tool calls (tasks) in order."""
    try:
        async for s in stream_sentences(llm_stream(MODEL, f"Describe {topic} in Kyoto in two sentences.")):
            queue.put_nowait(asyncio.create_task(speak(s)))
        queue.put_nowait(END)
    except BaseException as e:
        queue.put_nowait(e)


def write(s):
    sys.stdout.write(s)
    sys.stdout.flush()


async def run():
    queues = [asyncio.Queue() for _ in TOPICS]
    dispatchers = [asyncio.create_task(dispatch(t, q)) for t, q in zip(TOPICS, queues)]
    for q in queues:
        while True:
            item = await q.get()
            if isinstance(item, BaseException):
                raise item
            if item is END:
                break
            write(await item)
    await asyncio.gather(*dispatchers)
    write("\n")


async def main():
    global session
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), timeout=aiohttp.ClientTimeout(total=None)) as session:
        await run()


if __name__ == "__main__":
    asyncio.run(main())
