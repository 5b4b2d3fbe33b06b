#!/bin/sh
# The language server's response times on a generated 2,000-line file (median of 10
# of each request kind); see bench.py. Build first: cargo build --release.
exec python3 "$(dirname "$0")/bench.py" "$@"
