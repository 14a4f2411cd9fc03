#!/usr/bin/env bash
# The distributed tier in one command: RabbitMQ and MariaDB from Debian's
# packages, heat-api and two heat-engines from the same heat.conf, all on
# 127.0.0.1, started and stopped by tests/distributed/conftest.py.
#
# Installs what is missing (as root: apt-get; into ./.venv, or $VENV:
# this package with Heat, the test requirements and PyMySQL), then runs
# pytest tests/distributed. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${VENV:-.venv}

missing=()
[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || missing+=(rabbitmq-server)
command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] ||
    missing+=(mariadb-server)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "missing Debian packages: ${missing[*]} (run as root)" >&2
        exit 1
    fi
    # Keep the packages' scripts from starting the system services: the
    # tests start their own, on free ports.
    policy_added=
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
        chmod 755 /usr/sbin/policy-rc.d
        policy_added=1
        trap 'rm -f /usr/sbin/policy-rc.d' EXIT
    fi
    echo "installing ${missing[*]} with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
    if [ -n "$policy_added" ]; then
        rm -f /usr/sbin/policy-rc.d
        trap - EXIT
    fi
fi

[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
if ! "$venv/bin/python" -c 'import heat, heat_breakpoint, pymysql, pytest' \
        2>/dev/null; then
    "$venv/bin/pip" install -q --upgrade pip
    "$venv/bin/pip" install -q -e '.[server]' -r test-requirements.txt \
        PyMySQL
    # stevedore caches entry points; a fresh install must be seen.
    rm -rf "${XDG_CACHE_HOME:-$HOME/.cache}/python-entrypoints"
fi

start=$(date +%s)
status=0
"$venv/bin/python" -m pytest -q -p no:cacheprovider -rfEx \
    tests/distributed "$@" || status=$?
echo "distributed tier finished in $(( $(date +%s) - start )) s"
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests" >&2
    exit 1
fi
exit "$status"
