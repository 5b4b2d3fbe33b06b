#!/usr/bin/env python3
"""City excursions, practitioner-style sequential Python (OPAL's baseline for city.sp):
blocking, non-streaming calls one after another, each section printed (and flushed)
as soon as it is known. Standard library only. Reads OPENAI_BASE_URL (and
OPENAI_API_KEY, if set).
"""

import json
import os
import sys
import urllib.request

BASE = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1").rstrip("/")
KEY = os.environ.get("OPENAI_API_KEY")
MODEL = "gpt-3.5-turbo"
CITY = "Kyoto"


def llm(model, prompt):
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": prompt}]}).encode("utf-8")
    headers = {"Content-Type": "application/json"}
    if KEY:
        headers["Authorization"] = f"Bearer {KEY}"
    req = urllib.request.Request(f"{BASE}/chat/completions", data=body, headers=headers, method="POST")
    with urllib.request.urlopen(req) as r:
        return json.load(r)["choices"][0]["message"]["content"]


def write(s):
    sys.stdout.write(s)
    sys.stdout.flush()


listing = llm(MODEL, f"List 10 places to visit in {CITY}, one per line, names only.")
for line in listing.split("\n"):
    place = line.strip()
    if not place:
        continue
    write("## " + place + "\n")
    write(llm(MODEL, f"Plan a half-day excursion to {place} in {CITY} in three steps.") + "\n")
write("\n")
