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
"""Fixtures of the interaction tier: the functional tier's local Heat,
and a second one with the plugin disabled as the reference.

The report (seed, scenarios, pairs covered, time) is printed at the end
of the run by :func:`pytest_terminal_summary`.
"""

import os
import time

import pytest

from tests.functional.conftest import heat_server  # noqa: F401
from tests.functional.conftest import stock_heat
from tests.interaction import dimensions
from tests.interaction import pairwise

_STARTED = time.monotonic()


@pytest.fixture(scope='session')
def stock_server():
    with stock_heat('heat-breakpoint-interaction-') as server:
        yield server


@pytest.fixture(scope='session')
def references():
    return {}


@pytest.fixture
def workdir(tmp_path):
    return str(tmp_path)


def pytest_terminal_summary(terminalreporter):
    ran = [r for key in ('passed', 'failed', 'xfailed', 'xpassed')
           for r in terminalreporter.stats.get(key, [])
           if '/interaction/' in r.nodeid and r.when == 'call']
    if not ran:
        return
    seed = dimensions.seed_from_env()
    chosen = dimensions.selection(seed)
    names = list(dimensions.DIMENSIONS)
    want = pairwise.coverable_pairs(dimensions.DIMENSIONS,
                                    dimensions.allowed)
    got = pairwise.covered(chosen, names)
    counts = {}
    for report in ran:
        outcome = report.outcome
        if hasattr(report, 'wasxfail'):
            outcome = 'xfailed' if report.skipped else 'xpassed'
        counts[outcome] = counts.get(outcome, 0) + 1
    terminalreporter.write_sep('-', 'interaction tier')
    terminalreporter.write_line(
        'seed %d (HEAT_BREAKPOINT_INTERACTION_SEED), %s: %d of %d '
        'scenarios selected, %d run; pairs covered %d of %d; %.0f s'
        % (seed, os.environ.get('HEAT_BREAKPOINT_INTERACTION', 'slice'),
           len(chosen), len(dimensions.plan(seed)), len(ran), len(got),
           len(want), time.monotonic() - _STARTED))
    terminalreporter.write_line('outcomes: %s' % ', '.join(
        '%s %d' % kv for kv in sorted(counts.items())))
