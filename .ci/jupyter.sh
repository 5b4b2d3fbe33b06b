#!/usr/bin/env bash
# The Jupyter kernel (issue 32) under jupyter_kernel_test and a headless nbclient run
# of examples/notebook.ipynb: a Python virtual environment with the Jupyter client
# packages, the kernel spec installed into it, then tests/jupyter/test_kernel.py.
# Needs only Rust and python3 (with pip); the first run downloads the packages, later
# runs reuse the environment in target/jupyter-venv.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/jupyter-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import jupyter_kernel_test, nbclient, pytest' 2>/dev/null; then
  rm -rf "$venv"
  if ! python3 -m venv "$venv" 2>/dev/null; then
    # Debian's python3 leaves ensurepip out: a venv without pip, then pip into it.
    rm -rf "$venv"
    if command -v apt-get >/dev/null && ! python3 -c 'import ensurepip' 2>/dev/null; then
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
    fi
    python3 -m venv "$venv"
  fi
  "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    jupyter-kernel-test nbclient nbformat jupyter_client ipykernel pytest
fi

cargo build --release --bin spindle
target/release/spindle jupyter install --prefix "$venv"
# The venv's Jupyter looks in its own share/jupyter; nothing of the user's is used.
export JUPYTER_PATH="$PWD/$venv/share/jupyter"
export JUPYTER_PLATFORM_DIRS=1
"$venv/bin/python" -m pytest -q tests/jupyter/test_kernel.py
