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
"""The breakpoints view (``GET .../stacks/{stack}/breakpoints``) on the
real local Heat: what it lists must be what the client works out by
itself from the resource list, events and environment (its fallback for a
Heat without the view), for plugin holds, stock hooks and nested stacks.
"""

import os
import re
import time
from unittest import mock

import requests

from heatclient_ext.v1 import manager as bp_v1
from tests.functional import test_engine
from tests.functional import utils

NESTED_FILES = ('level1.yaml', 'level2.yaml')
DEEP = 'outer/inner/leaf'


def view(heat_server, stack, query='', project='admin', **headers):
    return requests.get('%s/v1/%s/stacks/%s/breakpoints%s' % (
        heat_server.url, project, stack, query), headers=headers, timeout=30)


# What the client works out without the view; the view says more
# (source, why, when, actions), which the fallback cannot know.
SHARED_KEYS = ('resource', 'action', 'state', 'held_since', 'hook', 'form',
               'breakpoint', 'stack', 'resource_name')


def without_timeout(rows):
    return sorted(({key: row.get(key) for key in SHARED_KEYS}
                   for row in rows),
                  key=lambda row: (row['state'], row['resource']))


def client_side(manager, stack, nested_depth=None):
    with mock.patch.object(manager.reading, 'view', return_value=None):
        return manager.list(stack, nested_depth)


def test_view_agrees_with_the_client_side_listing(heat_server, heat,
                                                  stack_name):
    test_engine.create(
        heat, stack_name, 'nested_root.yaml', DEEP, 'outer/inner/aft*',
        files=test_engine.template_files(*NESTED_FILES), timeout_mins=30)
    manager = bp_v1.BreakpointManager(heat)
    held = utils.wait_for(
        lambda: [row for row in manager.list(stack_name)
                 if row['state'] == 'held'], 90, what='the nested hold')
    assert [(row['resource'], row['form'], row['breakpoint'])
            for row in held] == [(DEEP, 'plugin', DEEP)]

    answer = view(heat_server, stack_name)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    stack = heat.stacks.get(stack_name)
    assert body['stack'] == {'id': stack.id, 'stack_name': stack_name,
                             'stack_status': 'CREATE_IN_PROGRESS'}
    rows = body['breakpoints']
    assert without_timeout(rows) == without_timeout(
        client_side(manager, stack_name))
    assert {row['state'] for row in rows} == {'held', 'armed'}
    [deep] = [row for row in rows if row['state'] == 'held']
    assert deep['stack'].split('/')[0].startswith(stack_name + '-outer-')
    assert deep['resource_name'] == 'leaf'
    assert re.match(r'^\d+:\d\d:\d\d$', deep['timeout_remaining'])

    # nested_depth limits how deep holds are looked for, as for resources
    shallow = view(heat_server, stack_name, '?nested_depth=1').json()
    assert [row['state'] for row in shallow['breakpoints']] == ['armed'] * 2
    assert without_timeout(shallow['breakpoints']) == without_timeout(
        client_side(manager, stack_name, 1))
    # by name/id, the same
    by_id = view(heat_server, '%s/%s' % (stack_name, stack.id)).json()
    assert without_timeout(by_id['breakpoints']) == without_timeout(rows)

    manager.continue_(stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE', timeout=120)
    after = view(heat_server, stack_name).json()['breakpoints']
    assert {(row['state'], row['timeout_remaining']) for row in after} == {
        ('armed', '')}


def test_view_lists_a_stock_hook(heat_server, heat, stack_name):
    env = {'resource_registry': {'resources': {'B': {
        'hooks': 'pre-create'}}}}
    heat.stacks.create(stack_name=stack_name,
                       template=test_engine.template('chain.yaml'),
                       environment=env)
    manager = bp_v1.BreakpointManager(heat)
    rows = utils.wait_for(
        lambda: [row for row in view(heat_server, stack_name).json()[
            'breakpoints'] if row['state'] == 'held'], 60,
        what='the stock hook hold')
    assert [(row['resource'], row['form'], row['hook'], row['action'])
            for row in rows] == [('B', 'hook', 'pre-create', 'CREATE')]
    assert without_timeout(rows) == without_timeout(
        [row for row in client_side(manager, stack_name)
         if row['state'] == 'held'])
    manager.continue_(stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE', timeout=60)


def test_a_stock_hook_passed_reads_done(heat_server, heat, stack_name):
    """A stock pre-create hook on a created resource never holds again.

    A, hooked by hand, is released the stock way and created while a
    breakpoint holds C: its row is done, not armed; so it stays once
    the stack is complete (stock Heat only holds pre-create in the
    stack's create). B's pre-update hook is armed for the next update.
    """
    env = {'resource_registry': {'resources': {
        'A': {'hooks': 'pre-create'}, 'B': {'hooks': 'pre-update'}}}}
    heat.stacks.create(stack_name=stack_name,
                       template=test_engine.template('chain.yaml'),
                       environment=test_engine.breakpoint_env('C', env=env))
    utils.wait_for(lambda: [row for row in view(heat_server, stack_name)
                            .json()['breakpoints']
                            if row['state'] == 'held'], 60,
                   what='the stock hook hold')
    heat.resources.signal(stack_name, 'A', data={'unset_hook': 'pre-create'})
    test_engine.wait_held(heat, stack_name, 'C')
    utils.wait_resource(heat, stack_name, 'A', 'CREATE_COMPLETE')

    def hook_rows():
        return sorted((row['resource'], row['state'], row['source'])
                      for row in view(heat_server, stack_name).json()[
                          'breakpoints'] if row['source'] == 'hook')
    assert hook_rows() == [('A', 'done', 'hook'), ('B', 'armed', 'hook')]
    bp_v1.BreakpointManager(heat).continue_(stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE', timeout=60)
    assert hook_rows() == [('A', 'done', 'hook'), ('B', 'armed', 'hook')]


def test_time_held_is_not_counted_in_timeout_remaining(heat_server, heat,
                                                       stack_name):
    test_engine.create(heat, stack_name, 'chain.yaml', 'B', timeout_mins=10)
    test_engine.wait_held(heat, stack_name, 'B')
    time.sleep(6)
    [row] = [row for row in view(heat_server, stack_name).json()[
        'breakpoints'] if row['state'] == 'held']
    hours, minutes, seconds = map(int, row['timeout_remaining'].split(':'))
    # Ten minutes less what ran before the hold (A, and Heat's 1 s sleep
    # after starting it); the six seconds held are not counted.
    assert hours * 3600 + minutes * 60 + seconds >= 596, row
    bp_v1.BreakpointManager(heat).continue_(stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE', timeout=60)


def test_view_errors_are_heat_faults(heat_server, heat, stack_name):
    missing = view(heat_server, 'no-such-stack')
    assert missing.status_code == 404
    assert missing.json()['error']['message'] == \
        'The Stack (no-such-stack) could not be found.'
    test_engine.create(heat, stack_name, 'chain.yaml', 'B')
    bad = view(heat_server, stack_name, '?nested_depth=deep')
    assert bad.status_code == 400
    assert 'nested_depth must be a whole number' in \
        bad.json()['error']['message']
    # Another project: its own URL does not find the stack, ours is refused
    other = {'X-Auth-Project': 'view-other', 'X-Is-Admin-Project': 'false'}
    assert view(heat_server, stack_name, project='view-other',
                **other).status_code == 404
    assert view(heat_server, stack_name, **other).status_code == 403
    test_engine.wait_held(heat, stack_name, 'B')
    bp_v1.BreakpointManager(heat).continue_(stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE', timeout=60)


def cli_rows(heat_server, *argv):
    from tests.functional import test_client_cli
    return test_client_cli.osc_json(heat_server, 'stack', 'breakpoint',
                                    *argv)


def rows_of(heat_server, stack):
    return sorted((row['Resource'], row['When'], row['State'])
                  for row in cli_rows(heat_server, 'list', stack))


def test_list_keeps_the_other_kinds_of_a_stepped_resource_and_says_done(
        heat_server, heat, stack_name):
    from tests.functional import test_client_cli
    code, out, err = test_client_cli.osc(
        heat_server, 'stack', 'create', stack_name, '-t',
        os.path.join(test_engine.TEMPLATES, 'chain.yaml'), '--breakpoint', 'A',
        '--breakpoint-on-failure', 'C', '--wait')
    assert code == 0, err
    # set says in which action and when it holds
    assert cli_rows(heat_server, 'set', stack_name, 'D', '--after') == [
        {'Resource': 'D', 'Action': 'CREATE', 'When': 'after',
         'Result': 'armed'}]
    assert cli_rows(heat_server, 'set', stack_name, 'B') == [
        {'Resource': 'B', 'Action': 'CREATE', 'When': 'before',
         'Result': 'armed'}]
    cli_rows(heat_server, 'clear', stack_name, 'B')
    cli_rows(heat_server, 'step', stack_name, 'A')
    utils.wait_for(lambda: ('B', 'before', 'held') in rows_of(
        heat_server, stack_name), 60, what='B held by the step')
    cli_rows(heat_server, 'step', stack_name, 'B')
    utils.wait_for(lambda: ('C', 'before', 'held') in rows_of(
        heat_server, stack_name), 60, what='C held by the step')
    # held before by the step, C keeps its on-failure rule
    assert ('C', 'failed', 'armed') in rows_of(heat_server, stack_name)

    cli_rows(heat_server, 'continue', stack_name, '--to', 'D')
    utils.wait_for(lambda: ('D', 'before', 'held') in rows_of(
        heat_server, stack_name), 60, what='D held (run to)')
    listed = rows_of(heat_server, stack_name)
    # A and C are done: the run to D disarmed their rules, they are done
    assert ('A', 'before', 'done') in listed
    assert ('C', 'failed', 'done') in listed, listed
    assert not any(state == 'disarmed' and name in ('A', 'B', 'C')
                   for name, _when, state in listed), listed
    cli_rows(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')


def test_show_of_a_resource_an_update_adds_has_no_unset_pairs(
        heat_server, heat, stack_name, tmp_path):
    import yaml

    from tests.functional import test_client_cli
    test_engine.create(heat, stack_name, 'chain.yaml')
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    template = test_engine.template('chain.yaml')
    template['resources']['E'] = {'type': 'OS::Heat::TestResource',
                                  'properties': {'value': 'e'}}
    path = tmp_path / 'more.yaml'
    path.write_text(yaml.safe_dump(template))
    code, out, err = test_client_cli.osc(
        heat_server, 'stack', 'update', stack_name, '-t', str(path),
        '--breakpoint-on-change', 'E', '--wait')
    assert code == 0, err
    code, out, err = test_client_cli.osc(
        heat_server, 'stack', 'breakpoint', 'show', stack_name, 'E')
    assert code == 0, err
    assert 'add' in out and 'value: - -> "e"' in out, out
    assert '- -> -' not in out, out
    shown = test_client_cli.osc_json(heat_server, 'stack', 'breakpoint',
                                     'show', stack_name, 'E')
    # the data keeps every property; only the text leaves out the unset
    assert any(diff == {'old': None, 'new': None}
               for diff in shown['change']['properties'].values())
    cli_rows(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')


def test_a_delete_shows_create_breakpoints_as_unable_to_hold(
        heat_server, heat, stack_name, tmp_path):
    from tests.functional import conftest
    env = tmp_path / 'env.yaml'
    env.write_text('breakpoints:\n'
                   '  - first\n'
                   '  - {resource: last, actions: [delete]}\n')
    template = tmp_path / 'pair.yaml'
    template.write_text(
        'heat_template_version: 2018-08-31\n'
        'resources:\n'
        '  first: {type: OS::Heat::TestResource}\n'
        '  last:\n'
        '    type: OS::Heat::TestResource\n'
        '    properties: {value: {get_attr: [first, output]}}\n')
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'create', '-t', str(template), '-e', str(env),
        stack_name)
    assert code == 0, err
    manager = bp_v1.BreakpointManager(heat)
    utils.wait_for(lambda: [r['resource'] for r in
                            manager.held_now(stack_name)[1]] == ['first'],
                   60, what='first held')
    manager.continue_(stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    heat.stacks.delete(stack_name)
    utils.wait_for(lambda: [r['resource'] for r in
                            manager.held_now(stack_name)[1]] == ['last'],
                   60, what='last held before its delete')
    rows = {row['resource']: row for row in manager.list(stack_name)}
    assert rows['last']['state'] == 'held'
    assert (rows['first']['state'], rows['first']['why']) == (
        'disarmed', 'not in a delete')
    manager.continue_(stack_name)
