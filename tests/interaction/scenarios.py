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
"""The test body every shard runs: one scenario, both servers, checked.

The scenarios are split over a few test files (``test_shard_*.py``) so
that pytest-xdist's ``--dist loadfile`` gives them to different workers.
"""

import json
import os
import time

import pytest

from heat_breakpoint.model import breakpoints
from tests.functional import utils
from tests.interaction import dimensions
from tests.interaction import invariants
from tests.interaction import known
from tests.interaction import runner
from tests.interaction import templates

SHARDS = 3


def params(shard):
    seed = dimensions.seed_from_env()
    chosen = dimensions.selection(seed)
    out = []
    for index, scenario in enumerate(chosen):
        if index % SHARDS != shard:
            continue
        why = known.known_defects(scenario)
        marks = [pytest.mark.xfail(strict=False, reason='; '.join(why))
                 ] if why else []
        out.append(pytest.param(scenario, marks=marks,
                                id='%02d-%s' % (index, dimensions.scenario_id(
                                    scenario))))
    return out


def reference_key(s):
    hold = runner.reference_hook(s)
    release = s['release'] if s['release'] in ('cancel', 'supersede') \
        else 'clear'
    return (s['family'], s['operation'], hold, s['name'],
            s['setter'] in ('set', 'continue-to'), release,
            s['hold'] == 'on-failure' or s['operation'] == 'rollback')


def run_scenario(scenario, heat_server, stock_server, references, workdir):
    if not breakpoints.addressable((templates.resource_name(
            scenario['name'], scenario['family']),)):
        run = runner.Run(heat_server, scenario, workdir)
        problems = run.refused_up_front()
        _record(scenario, problems, run, None, 0)
        if problems:
            pytest.fail('%s\n  %s\nreproduce:\n  %s' % (
                dimensions.scenario_id(scenario), '\n  '.join(problems),
                '\n  '.join(run.commands)), pytrace=False)
        return
    key = reference_key(scenario)
    if key not in references:
        reference = runner.Run(stock_server, scenario, workdir, stock=True)
        try:
            reference.run()
        except utils.Timeout:
            if scenario['release'] not in ('cancel', 'supersede'):
                raise
            # Stock Heat's native hook keeps a cancelled or superseded
            # operation's check waiting: the reference never ends, and
            # the subject is judged on what needs no stock end.
            reference = None
        if reference is not None and scenario['release'] in (
                'cancel', 'supersede') and not reference.out.holds_seen:
            # Stock could not stop there (no native hook before an
            # added resource...): its operation ran to its end, nothing
            # cancelled or superseded; no reference for this one.
            reference = None
        references[key] = reference
    ref = references[key]
    run = runner.Run(heat_server, scenario, workdir)
    error = None
    started = time.monotonic()
    try:
        run.run()
    except AssertionError as exc:
        error = str(exc)
    problems = ([error] if error else []) + invariants.check(run, ref)
    _record(scenario, problems, run, ref, time.monotonic() - started)
    if problems:
        pytest.fail('%s\n  %s\nreproduce (on a local server):\n  %s\n'
                    'stock reference ended %s: %s'
                    % (dimensions.scenario_id(scenario),
                       '\n  '.join(problems),
                       '\n  '.join(run.commands),
                       ref.out.status if ref else 'never (see above)',
                       '; '.join(ref.commands[-3:]) if ref else ''),
                    pytrace=False)


def _record(scenario, problems, run, ref, seconds):
    """A line per scenario in HEAT_BREAKPOINT_INTERACTION_RESULTS, if set.

    So that a long run stopped early still says what it found.
    """
    path = os.environ.get('HEAT_BREAKPOINT_INTERACTION_RESULTS')
    if not path:
        return
    line = {'scenario': dimensions.scenario_id(scenario),
            'known': known.known_defects(scenario), 'problems': problems,
            'seconds': round(seconds), 'commands': run.commands,
            'stock': [ref.out.status, ref.commands] if ref else None}
    with open(path, 'a', encoding='utf-8') as out:
        out.write(json.dumps(line, ensure_ascii=False) + '\n')
