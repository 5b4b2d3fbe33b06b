#!/usr/bin/env bash
# Runs the spec's conformance script on the spec examples that landed issues cover,
# listed in tests/conformance.list (one example name per line). Usage:
#   bash tests/conformance.sh target/release/spindle
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:-target/release/spindle}")
script="$here/../../shared/spec/conformance.sh"
if [ ! -f "$script" ]; then
  echo "no ../shared/spec/conformance.sh beside the project; skipping the spec examples"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
count=0
while IFS= read -r name; do
  case "$name" in ''|'#'*) continue ;; esac
  cp "$here/examples/spec/$name".* "$work"/
  count=$((count + 1))
done < "$here/conformance.list"
if [ "$count" -eq 0 ]; then
  echo "no spec examples are covered by landed work yet"
  exit 0
fi
bash "$script" "$bin" "$work"
