#!/usr/bin/env bash
# The web console on this machine, for a template author or a reviewer:
# a Keystone from PyPI with its users, heat-breakpoint-server --keystone,
# Horizon with heat-dashboard and the Breakpoints panel. Prints the URL
# and the users; Ctrl-C stops it all.
#   tools/dashboard.sh [--port 8080] [--state-dir DIR]
# Its virtualenv (VENV, default ./.venv-dash) is made on first use:
# this distribution with its [server,dashboard] extras, then Keystone.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${VENV:-.venv-dash}
if [ ! -x "$venv/bin/horizon-manage" ] && \
        ! "$venv/bin/python" -c 'import horizon' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --upgrade pip
    "$venv/bin/pip" install -q -e '.[server,dashboard]'
fi
exec "$venv/bin/python" tools/web_console.py "$@"
