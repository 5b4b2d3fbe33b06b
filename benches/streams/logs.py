#!/usr/bin/env python3
"""Log following, hand-written with asyncio (the twin of logs.sp).

    python3 logs.py big.log

The log is read from `tail -n +1` (through `bash -o pipefail -c`, as `shellLines`
runs it) line by line as it is written; each error line starts its tool (a
subprocess; at most 64 at once, Spindle's default `--jobs`) at once; the printer writes
the tools' outputs in order.
"""

import asyncio
import shlex
import sys

TOOL = "sleep 0.1; printf 'ticket: %s\\n' \"$1\""
JOBS = 64


async def tool(line, slots):
    async with slots:
        proc = await asyncio.create_subprocess_exec("sh", "-c", TOOL, "tool", line, stdout=asyncio.subprocess.PIPE)
        out, _ = await proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"tool failed with {proc.returncode}")
    return out.decode("utf-8")


END = object()


async def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "big.log"
    slots = asyncio.Semaphore(JOBS)
    results = asyncio.Queue()

    async def follow():
        try:
            proc = await asyncio.create_subprocess_exec(
                "bash", "-o", "pipefail", "-c", "tail -n +1 " + shlex.quote(path), stdout=asyncio.subprocess.PIPE, limit=1 << 20
            )
            async for raw in proc.stdout:
                line = raw.decode("utf-8")
                if line.endswith("\n"):
                    line = line[:-1]
                if " ERROR " in line:
                    results.put_nowait(asyncio.create_task(tool(line, slots)))
            if await proc.wait() != 0:
                raise RuntimeError(f"tail failed with {proc.returncode}")
            results.put_nowait(END)
        except BaseException as e:
            results.put_nowait(e)

    follower = asyncio.create_task(follow())
    while True:
        item = await results.get()
        if isinstance(item, BaseException):
            raise item
        if item is END:
            break
        sys.stdout.write(await item)
        sys.stdout.flush()
    await follower
    sys.stdout.write("\n")
    sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(main())
