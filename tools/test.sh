#!/usr/bin/env bash
# Set up a fresh virtualenv (./.venv) on a machine with Python 3.11 and run
# every test tier this machine can run: unit, functional (a real local Heat
# started by a fixture) and Heat's own unit tests with the plugin loaded,
# after flake8 with hacking's checks and mypy.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${VENV:-.venv}
python3 -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q -e '.[server]' -r test-requirements.txt
# The DAP adapter's functional tests drive it with VS Code's own DebugClient
# (pinned in tests/functional/dap/package-lock.json).
command -v npm >/dev/null || {
    echo "npm (node 20) is needed for tests/functional/test_dap.py" >&2
    exit 1
}
(cd tests/functional/dap && npm ci --no-audit --no-fund --loglevel=error)
# stevedore caches entry points; a fresh install must be seen.
rm -rf "${XDG_CACHE_HOME:-$HOME/.cache}/python-entrypoints"

# Style first (flake8 with hacking's checks, as tox -e pep8): seconds.
"$venv/bin/flake8" heat_breakpoint heatclient_ext tests tools benchmarks
# Types of the client and the shared model (as tox -e mypy; mypy is in
# test-requirements.txt): 6 to 11 s from a cold cache, under 1 s warm.
"$venv/bin/mypy" heatclient_ext heat_breakpoint/model

# The functional tests mostly wait on Heat (its 1 s per leaf, polls): a
# few pytest-xdist workers, each with a local Heat of its own, a test file
# to a worker. PYTEST_WORKERS=0 runs them in this process, one by one.
# tests/interaction runs its CI slice here (tools/interaction.sh: all).
workers=${PYTEST_WORKERS:-3}
status=0
"$venv/bin/python" -m pytest -q -p no:cacheprovider -n "$workers" --dist loadfile tests/unit tests/functional tests/corpus tests/interaction "$@" || status=$?
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests" >&2
    exit 1
fi
[ "$status" -eq 0 ] || exit "$status"
"$venv/bin/python" tools/heat_compat.py
