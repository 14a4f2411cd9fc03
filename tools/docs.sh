#!/usr/bin/env bash
# Build the documentation (doc/build/html) as CI does, warnings as
# errors: in ./.venv-docs (VENV to choose another), the package and
# doc/requirements.txt installed into it. tox -e docs does the same.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${VENV:-.venv-docs}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q -e . -r doc/requirements.txt
rm -rf doc/build/html
"$venv/bin/sphinx-build" -W --keep-going -b html doc/source doc/build/html "$@"
echo "documentation: doc/build/html/index.html"
