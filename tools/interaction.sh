#!/usr/bin/env bash
# The interaction tier in full: every scenario of the pairwise plan (CI
# runs the first few, see doc/source/contributor/testing.rst), on
# pytest-xdist workers, each with a local Heat and a stock one. The seed:
# HEAT_BREAKPOINT_INTERACTION_SEED (default 52). Extra arguments go to
# pytest (-k 'group and cancel', -x ...).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${VENV:-.venv}
export HEAT_BREAKPOINT_INTERACTION=all
# A line per scenario as it ends (JSON): what a run stopped early found.
export HEAT_BREAKPOINT_INTERACTION_RESULTS=${HEAT_BREAKPOINT_INTERACTION_RESULTS:-${TMPDIR:-/tmp}/heat-breakpoint-interaction.jsonl}
exec "$venv/bin/python" -m pytest -p no:cacheprovider -v -rfxX \
    -n "${PYTEST_WORKERS:-3}" --dist loadfile tests/interaction "$@"
