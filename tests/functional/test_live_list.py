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
"""The list tells what the running operation will do, on the real Heat.

``list`` and ``show`` merge the environment's breakpoints with what was
said during the operation (set, clear, step, continue, continue --to),
from the same rules the engine decides with: the sequence that once made
``list`` and the engine disagree, then each command's effect, through
the OSC shell (table and JSON), the Python API and the legacy shell.
"""

import json

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import reasons
from heat_breakpoint.model import registry
from heatclient_ext.v1 import manager as bp_v1
from tests.functional import test_client_cli as cli
from tests.functional import test_engine
from tests.functional import utils


def bp(server, *argv):
    return cli.osc(server, 'stack', 'breakpoint', *argv)


def ok(server, *argv):
    code, out, err = bp(server, *argv)
    assert code == 0, err
    return out


def rows(server, stack):
    return {(row['Resource'], row['When']): row
            for row in cli.osc_json(server, 'stack', 'breakpoint', 'list',
                                    stack)}


def state(server, stack, name):
    row = rows(server, stack).get((name, 'before'))
    return row and (row['State'], row['Source'], row['Why'])


def held_hits(heat, stack):
    return {e.resource_name for e in heat.events.list(stack)
            if (e.resource_status_reason or '').startswith('Breakpoint ') and
            ' reached before ' in (e.resource_status_reason or '')}


def test_set_and_clear_during_the_operation_are_listed(heat_server, heat,
                                                       stack_name):
    test_engine.create(heat, stack_name, 'abcd.yaml', 'a', 'c')
    cli.wait_held(heat_server, stack_name, 'a')

    # set d: listed as armed by set; show says so too.
    assert ok(heat_server, 'set', stack_name, 'd', '-f', 'value').split() \
        == ['d', 'CREATE', 'before', 'armed']
    assert state(heat_server, stack_name, 'd') == ('armed', 'set', '')
    shown = cli.osc_json(heat_server, 'stack', 'breakpoint', 'show',
                         stack_name, 'd')
    assert (shown['state'], shown['source']) == ('armed', 'set')

    # clear d (armed with set) disarms it, exit 0; clear c too.
    assert ok(heat_server, 'clear', stack_name, 'd', '-f', 'value') \
        .split() == ['d', 'disarmed']
    assert state(heat_server, stack_name, 'd') == ('disarmed', 'set',
                                                   'clear')
    assert ok(heat_server, 'clear', stack_name, 'c', '-f', 'value') \
        .split() == ['c', 'disarmed']
    assert state(heat_server, stack_name, 'c') == ('disarmed', 'environment',
                                                   'clear')
    assert state(heat_server, stack_name, 'a')[0] == 'held'

    # The same through the Python API and the legacy shell.
    manager = bp_v1.BreakpointManager(heat)
    api = {row['resource']: row for row in manager.list(stack_name)}
    assert (api['c']['state'], api['d']['state']) == ('disarmed',
                                                      'disarmed')
    code, out, err = cli.heat_breakpoint(heat_server, 'breakpoint-list',
                                         stack_name, '--format', 'json')
    assert code == 0, err
    legacy = {row['resource']: row for row in json.loads(out)}
    assert (legacy['d']['state'], legacy['d']['source']) == ('disarmed',
                                                             'set')

    # The engine agrees: a step from a holds b; then b is released and
    # c and d, disarmed, never hold.
    ok(heat_server, 'step', stack_name, 'a')
    cli.wait_held(heat_server, stack_name, 'b')
    assert state(heat_server, stack_name, 'b')[0] == 'held'
    ok(heat_server, 'clear', stack_name, 'b')
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    assert held_hits(heat, stack_name) == {'a', 'b'}
    # Once the operation ended, the environment's breakpoints are armed
    # for the next one.
    assert state(heat_server, stack_name, 'c') == ('armed', 'environment',
                                                   '')
    assert ('d', 'before') not in rows(heat_server, stack_name)


def test_clear_disarms_a_breakpoint_after_the_resource_too(
        heat_server, heat, stack_name):
    """``clear c`` disarms c's breakpoint whatever its ``when``.

    c holds after its create (the environment): ``clear c`` during the
    operation says disarmed, the list agrees, and c never holds.
    """
    env = registry.apply_to_environment(
        {}, breakpoints.parse_names(['a'], None))
    env = registry.apply_to_environment(
        env, breakpoints.parse_names(['c'], None, breakpoints.AFTER))
    heat.stacks.create(stack_name=stack_name,
                       template=test_engine.template('abcd.yaml'),
                       environment=env)
    cli.wait_held(heat_server, stack_name, 'a')
    assert rows(heat_server, stack_name)[('c', 'after')]['State'] == 'armed'

    assert ok(heat_server, 'clear', stack_name, 'c', '-f', 'value') \
        .split() == ['c', 'disarmed']
    row = rows(heat_server, stack_name)[('c', 'after')]
    assert (row['State'], row['Why']) == ('disarmed', 'clear')
    # Cleared already: said so, nothing sent.
    assert ok(heat_server, 'clear', stack_name, 'c', '-f', 'value') \
        .split() == ['c', 'already', 'disarmed']

    ok(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    hits = [reasons.parse_held(e.resource_status_reason)
            for e in heat.events.list(stack_name, resource_name='c')]
    assert not any(hits), hits


def test_continue_disarms_everything_for_the_operation(heat_server, heat,
                                                       stack_name):
    test_engine.create(heat, stack_name, 'abcd.yaml', 'a', 'c')
    cli.wait_held(heat_server, stack_name, 'a')
    ok(heat_server, 'set', stack_name, 'd')
    code, out, err = bp(heat_server, 'list', stack_name)
    assert 'set' in out
    ok(heat_server, 'continue', stack_name)
    found = utils.wait_for(
        lambda: (lambda r: r if r[('a', 'before')]['State'] != 'held'
                 else None)(rows(heat_server, stack_name)), 30,
        what='a released')
    if heat.stacks.get(stack_name).stack_status == 'CREATE_IN_PROGRESS':
        # Disarmed by the continue, or already past it (the list was read
        # after c's create on a fast run): never armed or held again.
        c_row = found[('c', 'before')]
        assert c_row['State'] == 'done' or (
            c_row['State'], c_row['Why']) == ('disarmed', 'continue'), c_row
        assert ('d', 'before') not in found  # what was said before: gone
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    assert held_hits(heat, stack_name) == {'a'}


def test_continue_to_arms_only_its_target(heat_server, heat, stack_name):
    test_engine.create(heat, stack_name, 'abcd.yaml', 'a', 'b')
    cli.wait_held(heat_server, stack_name, 'a')
    ok(heat_server, 'continue', stack_name, '--to', 'd')
    cli.wait_held(heat_server, stack_name, 'd')
    listed = rows(heat_server, stack_name)
    # b is done: it says so, and what disarmed its rule
    assert (listed[('b', 'before')]['State'],
            listed[('b', 'before')]['Why']) == ('done', 'run to d')
    assert listed[('d', 'before')]['Source'] == 'run-to'
    events = [e.resource_status_reason for e in heat.events.list(
        stack_name, resource_name='a')]
    assert 'Breakpoint a released (run to d)' in events
    ok(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    assert held_hits(heat, stack_name) == {'a', 'd'}
    # What a command changed is on the stack's own events, in words.
    stack_events = [e.resource_status_reason for e in heat.events.list(
        stack_name, resource_name=stack_name)]
    assert ('Running to d: the other breakpoints are off for this '
            'operation') in stack_events
