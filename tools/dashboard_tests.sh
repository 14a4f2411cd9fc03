#!/usr/bin/env bash
# The web console's tiers: the Breakpoints panel's Django view tests
# against a real local Heat (tests/dashboard), then the browser tests in
# headless Chromium against Keystone, the local server with --keystone and
# Horizon (tests/browser, whose screenshots are the user guide's
# pictures). Their virtualenv (VENV, default ./.venv-dash) has this
# distribution with [server,dashboard] (Horizon 27, heat-dashboard 16),
# the test requirements and selenium; Keystone and gunicorn come into it
# on the browser tier's first run. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${VENV:-.venv-dash}
command -v chromium >/dev/null && command -v chromedriver >/dev/null && \
    command -v dot >/dev/null || {
    apt-get update && apt-get install -y chromium chromium-driver graphviz
}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install -q --upgrade pip
"$venv/bin/pip" install -q -e '.[server,dashboard]' \
    -r test-requirements.txt 'selenium>=4.20'
"$venv/bin/pip" check
start=$(date +%s)
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests/dashboard \
    tests/browser "$@"
echo "web console tiers finished in $(( $(date +%s) - start )) s"
