#!/usr/bin/env python3
"""Text to speech, practitioner-style sequential Python (OPAL's baseline for tts.sp):
blocking, non-streaming calls one after another; then each sentence of the text goes to
the text-to-speech tool in turn and its output is printed (and flushed). Standard
library only. Reads OPENAI_BASE_URL (and OPENAI_API_KEY, if set).
"""

import json
import os
import subprocess
import sys
import urllib.request

BASE = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
KEY = os.environ.get("OPENAI_API_KEY")
MODEL = "gpt-3.5-turbo"
TOPICS = ["the Old Market", "the Golden Pavilion", "the Stone Garden", "the Bamboo Path", "the River Bridge", "the Lantern Shrine"]
TTS = "sleep 0.2; printf 'audio: %s\\n' \"$1\""


def llm(model, prompt):
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": prompt}]}).encode("utf-8")
    headers = {"Content-Type": "application/json"}
    if KEY:
        headers["Authorization"] = f"Bearer {KEY}"
    req = urllib.request.Request(f"{BASE}/chat/completions", data=body, headers=headers, method="POST")
    with urllib.request.urlopen(req) as r:
        return json.load(r)["choices"][0]["message"]["content"]


def sentences(text):
    parts = text.split(".")
    out = [(p + ".").strip() for p in parts[:-1]]
    if parts[-1].strip():
        out.append(parts[-1].strip())
    return out


def write(s):
    sys.stdout.write(s)
    sys.stdout.flush()


replies = [llm(MODEL, f"Describe {t} in Kyoto in two sentences.") for t in TOPICS]
for reply in replies:
    for s in sentences(reply):
        write(subprocess.run(["sh", "-c", TTS, "tts", s], stdout=subprocess.PIPE, check=True, text=True).stdout)
write("\n")
