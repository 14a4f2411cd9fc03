#!/usr/bin/env bash
# Set up ./.venv on a machine with Python 3.11, start a real local Heat with
# breakpoints and walk through a stack held at a breakpoint.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${VENV:-.venv}
python3 -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q -e '.[server]'
rm -rf "${XDG_CACHE_HOME:-$HOME/.cache}/python-entrypoints"
exec "$venv/bin/python" examples/demo.py
