#!/usr/bin/env bash
# The decision's unit tests where Heat is not installed (as tox -e
# decision): a virtualenv with pytest alone, the source tree on the path.
# CI runs it after tools/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${DECISION_VENV:-.venv-decision}
python3 -m venv "$venv"
"$venv/bin/pip" install -q pytest
"$venv/bin/python" -c "import importlib.util as u, sys; sys.exit(u.find_spec('heat') is not None and 'Heat is installed in $venv')"
PYTHONDONTWRITEBYTECODE=1 PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider \
    tests/unit/test_engine_decision.py "$@"
