#!/usr/bin/env python3
"""Log following, practitioner-style sequential Python (the baseline for logs.sp): the
log read whole (`tail -n +1`, blocking), then the tool run on each error line in turn,
each output printed (and flushed) as it comes.

    python3 logs_seq.py big.log
"""

import shlex
import subprocess
import sys

TOOL = "sleep 0.1; printf 'ticket: %s\\n' \"$1\""

path = sys.argv[1] if len(sys.argv) > 1 else "big.log"
text = subprocess.run(["bash", "-o", "pipefail", "-c", "tail -n +1 " + shlex.quote(path)], stdout=subprocess.PIPE, check=True, text=True).stdout
for line in text.split("\n")[:-1] if text.endswith("\n") else text.split("\n"):
    if " ERROR " in line:
        sys.stdout.write(subprocess.run(["sh", "-c", TOOL, "tool", line], stdout=subprocess.PIPE, check=True, text=True).stdout)
        sys.stdout.flush()
sys.stdout.write("\n")
sys.stdout.flush()
