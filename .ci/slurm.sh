#!/usr/bin/env bash
# The Slurm executor's integration tests on a real single-node cluster (issue 14):
# installs and starts Slurm with shared/recipes/slurm-local.sh, gives the node 16 slots
# (the tests fan out to 16 jobs; Slurm counts cores, and this machine has 2), runs
# tests/slurm.rs one test at a time, and stops the cluster whatever happens.
#
#   bash .ci/slurm.sh            from the repository's root (shared/ beside it)
#   SLURM_RECIPE=path bash .ci/slurm.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
recipe=${SLURM_RECIPE:-}
for r in "$recipe" "$root/../shared/recipes/slurm-local.sh" /work/shared/recipes/slurm-local.sh; do
  if [ -n "$r" ] && [ -f "$r" ]; then recipe=$r; break; fi
done
[ -f "$recipe" ] || { echo "slurm.sh: no slurm-local.sh recipe found" >&2; exit 1; }
export SLURM_TEST_DIR=${SLURM_TEST_DIR:-/tmp/spindle-slurm}

bash "$recipe" install
eval "$(bash "$recipe" start)"
trap 'bash "$recipe" stop || true' EXIT

# 16 slots: the node declares 16 CPUs and slurmd accepts the configuration as written.
conf=$SLURM_CONF
sed -i -E 's/ CPUs=[0-9]+ / CPUs=16 /' "$conf"
grep -q '^SlurmdParameters=' "$conf" || echo 'SlurmdParameters=config_overrides' >> "$conf"
for f in "$SLURM_TEST_DIR/slurmd.pid" "$SLURM_TEST_DIR/slurmctld.pid"; do
  if [ -f "$f" ]; then
    pid=$(cat "$f"); kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
done
slurmctld -i
slurmd
for _ in $(seq 1 100); do
  scontrol update nodename="$(hostname -s)" state=resume >/dev/null 2>&1 || true
  sinfo -h -o '%T %c' 2>/dev/null | grep -q '^idle 16' && break
  sleep 0.2
done
sinfo -h -o '%T %c' | grep -q '^idle 16' || { echo "slurm did not come up with 16 slots; see $SLURM_TEST_DIR/log" >&2; exit 1; }

cd "$root"
cargo build --release --quiet
cargo test --release --test slurm -- --test-threads 1 --nocapture
