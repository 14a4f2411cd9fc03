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
"""A hold parked by one heat-engine, listed, stepped and continued through
requests another engine serves.

The engine that parks a hold logs ``Breakpoint R reached: R held before
CREATE``; the engine that serves a release (the resource signal RPC) logs
Heat's ``Clearing pre-create hook on TestResource "R" Stack "S"``. RPC
calls are spread over the engines by RabbitMQ, so the test walks stacks
through the real ``openstack stack breakpoint`` commands until it has seen
a step and a continue served by an engine other than the one holding.
"""

import random

import requests
import yaml

from tests.distributed import common

MAX_STACKS = 10


def shuffle_engine_rpc(hc):
    """0-3 cheap RPC calls: which engine serves the next call is random.

    RabbitMQ hands the calls of a queue to its consumers in turn, and a
    walk makes the same calls every time: without this, every release of
    a given step would land on the same engine as before.
    """
    for _ in range(random.randint(0, 3)):
        hc.build_info.build_info()


def _walk_one_stack(cluster, hc, tmp_path):
    """Create a 5-chain held at b, step three times, continue; the cases."""
    t = common.tag()
    names = ['%s_%s' % (letter, t) for letter in 'abcde']
    stack = 'cross-%s' % t
    path = tmp_path / ('%s.yaml' % stack)
    path.write_text(yaml.safe_dump(common.chain(names)))

    def explain():
        return '\nengine errors:\n%s' % cluster.errors()

    common.osc_ok(cluster, 'stack', 'create', '-t', str(path),
                  '--breakpoint', names[1], stack)
    cases = []
    for i, name in enumerate(names[1:], start=1):
        common.wait_held_set(hc, stack, [name], explain=explain)
        holder = common.engine_of(cluster, common.hold_line(name))
        rows = common.osc_json(cluster, 'stack', 'breakpoint', 'list',
                               stack)
        held = [row for row in rows if row['State'] == 'held']
        assert [(r['Resource'], r['Action']) for r in held] == [
            (name, 'CREATE')], rows
        # heat-api answered the breakpoints view through an engine's RPC
        # (the list above would fall back quietly without it)
        view = requests.get('%s/stacks/%s/breakpoints' % (
            cluster.endpoint(), stack), timeout=30)
        assert view.status_code == 200, view.text
        assert [(r['resource'], r['action'], r['form'])
                for r in view.json()['breakpoints']
                if r['state'] == 'held'] == [(name, 'CREATE', 'plugin')]
        shuffle_engine_rpc(hc)
        if name == names[-1]:
            how = 'continue'
            out = common.osc_json(cluster, 'stack', 'breakpoint',
                                  'continue', stack)
        else:
            how = 'step'
            out = common.osc_json(cluster, 'stack', 'breakpoint', 'step',
                                  stack, name)
        assert [row['Resource'] for row in out] == [name], out
        releaser = common.engine_of(cluster,
                                    common.clear_line(name, stack))
        cases.append((how, name, holder, releaser))
    common.wait_stack(hc, stack, 'CREATE_COMPLETE', explain=explain)
    common.assert_created_once(hc, stack, names)
    assert [o['output_value'] for o in hc.stacks.get(stack).outputs] == [
        'one']
    for how, name, _holder, _releaser in cases:
        assert len(common.released_events(hc, stack, name, how)) == 1, name
    return cases


def test_held_on_one_engine_released_through_the_other(cluster, tmp_path):
    hc = cluster.client()
    cases = []
    for _ in range(MAX_STACKS):
        cases += _walk_one_stack(cluster, hc, tmp_path)
        crossed = {how for how, _n, holder, releaser in cases
                   if holder != releaser}
        if crossed == {'step', 'continue'}:
            break
    report = '\n'.join('%-8s %-10s held by %s, released by %s' % case
                       for case in cases)
    print('\n' + report)
    assert crossed == {'step', 'continue'}, report
    # Both engines took part.
    engines = {holder for _h, _n, holder, _r in cases} | {
        releaser for _h, _n, _ho, releaser in cases}
    assert len(engines) == 2, report
