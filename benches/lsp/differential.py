"""Differential check of the language server's incremental checking: random edits of
the repository's .sp files (a digit changed, a line added, removed or doubled, a
string or a name changed); after each, the diagnostics that a server which checked
every version incrementally publishes must equal those of a fresh server opening the
same text. Prints each difference (and keeps its two texts in /tmp/lsp-mismatch*).

  python3 benches/lsp/differential.py [SEED] [FILES]
"""
import sys, json, random, glob, os
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import Client
ROOT = os.path.dirname(os.path.dirname(HERE))
EXE = os.path.join(ROOT, "target/release/spindle")
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
files = sorted(glob.glob(ROOT + "/tests/**/*.sp", recursive=True) + glob.glob(ROOT + "/examples/**/*.sp", recursive=True))
files = [f for f in files if os.path.getsize(f) < 20000]
random.shuffle(files)
def mutate(t):
    k = random.randrange(6)
    lines = t.split("\n")
    if k == 0:  # change a digit
        idx = [i for i, ch in enumerate(t) if ch.isdigit()]
        if idx:
            i = random.choice(idx); return t[:i] + random.choice("0123456789") + t[i+1:]
    if k == 1:  # insert a blank line
        i = random.randrange(len(lines)); lines.insert(i, ""); return "\n".join(lines)
    if k == 2:  # delete a line
        i = random.randrange(len(lines)); del lines[i]; return "\n".join(lines)
    if k == 3:  # duplicate a line
        i = random.randrange(len(lines)); lines.insert(i, lines[i]); return "\n".join(lines)
    if k == 4:  # change a string literal
        i = t.find('"', random.randrange(len(t)) if t else 0)
        if i >= 0: return t[:i+1] + "z" + t[i+1:]
    # swap an identifier char
    i = random.randrange(len(t)) if t else 0
    return t[:i] + t[i+1:] if t else t
inc = Client(EXE); inc.request("initialize", {"capabilities": {}})
fresh = Client(EXE); fresh.request("initialize", {"capabilities": {}})
bad = 0; total = 0; checked = 0; reused = 0
for n, f in enumerate(files[:int(sys.argv[2]) if len(sys.argv) > 2 else 40]):
    uri = "file://" + f
    try:
        t = open(f).read()
    except UnicodeDecodeError:
        continue
    inc.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "spindle", "version": 1, "text": t}}); inc.diagnostics()
    for v in range(8):
        t2 = mutate(t)
        if random.random() < 0.3: t2 = t  # back to a known text sometimes
        inc.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v + 2}, "contentChanges": [{"text": t2}]})
        d1 = inc.diagnostics()["params"]["diagnostics"]
        s = inc.request("spindle/stats", {"textDocument": {"uri": uri}})["result"]
        checked += s["checked"]; reused += s["reused"]
        fresh.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "spindle", "version": 1, "text": t2}})
        d2 = fresh.diagnostics()["params"]["diagnostics"]
        fresh.notify("textDocument/didClose", {"textDocument": {"uri": uri}}); fresh.diagnostics()
        total += 1
        if d1 != d2:
            bad += 1
            print("MISMATCH", f, v)
            print(" inc  ", json.dumps(d1)[:600]); print(" fresh", json.dumps(d2)[:600])
            open(f"/tmp/lsp-mismatch{bad}.sp", "w").write(t2); open(f"/tmp/lsp-mismatch{bad}.prev.sp", "w").write(t)
        t = t2
    inc.notify("textDocument/didClose", {"textDocument": {"uri": uri}}); inc.diagnostics()
print(f"{total} edits, {bad} mismatches; definitions checked {checked}, reused {reused}")
