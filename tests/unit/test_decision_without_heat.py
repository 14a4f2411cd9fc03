# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.
"""The decision and its unit tests need neither Heat nor the database.

``tox -e decision`` runs the decision's tests in an environment without
Heat; this proves the same on every run of the unit tests: a fresh
interpreter that refuses to import Heat, SQLAlchemy, oslo.* and our
``db`` package imports the decision and runs its tests.
"""

import os
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))

# Installed first in the child: any import of these fails there, as it
# would where they are not installed.
_REFUSING = r'''
import sys


class Refuse:
    """Imports of Heat, the database and oslo fail, as if not installed."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        top = name.partition('.')[0]
        if (top in ('heat', 'sqlalchemy', 'alembic', 'pymysql') or
                top.startswith('oslo_') or name == 'heat_breakpoint.db' or
                name.startswith('heat_breakpoint.db.')):
            raise ModuleNotFoundError('refused: %s' % name, name=name)
        return None


sys.meta_path.insert(0, Refuse())
'''

# What importing the decision may load of ours: the packages on its way,
# itself, the model.
_ALLOWED = r'''
before = set(sys.modules)
from heat_breakpoint.engine.check import decision  # noqa
loaded = sorted(name for name in set(sys.modules) - before
                if name.startswith('heat_breakpoint'))
allowed = ('heat_breakpoint', 'heat_breakpoint.engine',
           'heat_breakpoint.engine.check',
           'heat_breakpoint.engine.check.decision')
others = [name for name in loaded if name not in allowed and
          not name.startswith('heat_breakpoint.model')]
assert not others, others
print('loaded: %s' % ' '.join(loaded))
'''


def _child(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD='1',
               PYTHONDONTWRITEBYTECODE='1')
    return subprocess.run([sys.executable, '-c', _REFUSING + code],
                          cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)


def test_the_decision_imports_only_the_model_and_the_standard_library():
    found = _child(_ALLOWED)
    assert found.returncode == 0, found.stderr
    assert 'heat_breakpoint.engine.check.decision' in found.stdout


def test_the_decisions_unit_tests_run_without_heat():
    found = _child(
        'import pytest\n'
        'sys.exit(pytest.main(["-q", "-p", "no:cacheprovider",'
        ' "tests/unit/test_engine_decision.py"]))\n')
    assert found.returncode == 0, found.stdout + found.stderr
    assert ' passed' in found.stdout and 'failed' not in found.stdout


def test_the_child_refuses_heat():
    """The refusal works: without it the tests above would prove nothing."""
    found = _child('import heat.engine.resource\n')
    assert found.returncode != 0
    assert 'refused: heat' in found.stderr
