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
"""The breakpoint manager on fabricated stacks, resources and events.

Both forms of a hold are covered: the engine plugin's (resource
``<ACTION>_IN_PROGRESS`` with a breakpoint reason) and stock Heat's (the
resource keeps its state; only a "paused until Hook" event says so).
"""

import datetime
import json
from unittest import mock

from heatclient import exc as heat_exc
from oslo_utils import timeutils
import pytest

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons
from heat_breakpoint.model import registry
from heatclient_ext import exceptions
from heatclient_ext import fakes
from heatclient_ext.v1 import commanding
from heatclient_ext.v1 import manager as bp_v1
from heatclient_ext.v1 import stock

MASK = bp_v1.MASK


def env_with(*names, **actions):
    return registry.apply_to_environment(
        {}, breakpoints.parse_names(list(names), **actions))


@pytest.fixture
def heat():
    return fakes.FakeHeat()


@pytest.fixture
def manager(heat):
    return bp_v1.BreakpointManager(heat)


@pytest.fixture
def nested_stack(heat):
    """outer stack s: a1 -> a2 (held by the plugin), app -> nested: db."""
    stack = heat.add_stack('s', env=env_with('a2', 'b1', 'app/db'),
                           timeout_mins=60,
                           creation_time='2024-01-01T00:00:00Z')
    inner = heat.add_stack('s-app-x', parent='app')
    heat.add_resource(stack, 'a1', 'CREATE_COMPLETE', required_by=['a2'])
    heat.add_resource(stack, 'a2', 'CREATE_IN_PROGRESS',
                      reasons.held('a2', 'CREATE', 'pre-create'),
                      updated_time='2024-01-01T00:01:00Z')
    heat.add_resource(stack, 'b1', 'INIT_COMPLETE')
    heat.add_resource(stack, 'app', 'CREATE_IN_PROGRESS', nested=inner)
    heat.add_resource(inner, 'db', 'CREATE_IN_PROGRESS',
                      reasons.held('app/db', 'CREATE', 'pre-create'),
                      updated_time='2024-01-01T00:02:00Z')
    return stack, inner


def by_resource(rows):
    return {row['resource']: row for row in rows}


# -- list --------------------------------------------------------------------

def test_list_plugin_form_with_nested(manager, heat, nested_stack):
    with mock.patch.object(timeutils, 'utcnow', return_value=datetime.
                           datetime(2024, 1, 1, 0, 10, 0)):
        rows = manager.list('s')
    rows = by_resource(rows)
    assert set(rows) == {'a2', 'app/db', 'b1'}
    assert rows['a2']['state'] == 'held'
    assert rows['a2']['action'] == 'CREATE'
    assert rows['a2']['held_since'] == '2024-01-01T00:01:00Z'
    assert rows['a2']['timeout_remaining'] == '0:50:00'
    assert rows['app/db']['state'] == 'held'
    assert rows['app/db']['stack'] == 's-app-x/%s' % nested_stack[1]['id']
    assert rows['app/db']['resource_name'] == 'db'
    assert rows['b1']['state'] == 'armed'
    assert rows['b1']['action'] == 'CREATE,UPDATE'


def test_list_never_scans_events_in_plugin_form(manager, heat, nested_stack):
    stack = nested_stack[0]
    for i in range(2000):
        heat.add_event(stack, 'a1', 'state changed', '2024-01-01T00:00:01Z')
    manager.list('s')
    assert heat.event_queries == []


def test_list_depth_follows_the_deepest_breakpoint(manager, heat,
                                                   nested_stack):
    rows = manager.list('s', nested_depth=0)
    # with depth 0 the nested hold is not seen; the breakpoint is armed
    assert by_resource(rows)['app/db']['state'] == 'armed'


def test_list_stock_hook_form(manager, heat):
    stack = heat.add_stack('s', env=env_with('a2', 'b1'),
                           creation_time='2024-01-01T00:00:00Z')
    heat.add_resource(stack, 'a1', 'CREATE_COMPLETE')
    heat.add_resource(stack, 'a2', 'INIT_COMPLETE')
    heat.add_resource(stack, 'b1', 'INIT_COMPLETE')
    heat.add_resource(stack, 'c1', 'INIT_COMPLETE')
    for i in range(50):
        heat.add_event(stack, 'a1', 'state changed', '2024-01-01T00:00:01Z')
    heat.add_event(stack, 'a2', 'CREATE paused until Hook pre-create is '
                   'cleared', '2024-01-01T00:00:05Z')
    rows = by_resource(manager.list('s'))
    assert rows['a2']['state'] == 'held'
    assert rows['a2']['hook'] == 'pre-create'
    assert rows['a2']['form'] == 'hook'
    assert rows['a2']['held_since'] == '2024-01-01T00:00:05Z'
    assert rows['b1']['state'] == 'armed'
    # one tiny query per armed candidate, never the stack's event list
    assert sorted(q['resource_name'] for q in heat.event_queries) == [
        'a2', 'b1']
    assert all(q['limit'] == 1 for q in heat.event_queries)


def test_stock_pause_of_an_earlier_operation_is_not_a_hold(manager, heat):
    stack = heat.add_stack('s', status='UPDATE_IN_PROGRESS',
                           env=env_with('a2'),
                           updated_time='2024-02-01T00:00:00Z')
    heat.add_resource(stack, 'a2', 'CREATE_COMPLETE')
    heat.add_event(stack, 'a2', 'UPDATE paused until Hook pre-update is '
                   'cleared', '2024-01-05T00:00:00Z')
    assert by_resource(manager.list('s'))['a2']['state'] == 'armed'


def test_hand_set_hooks_are_listed(manager, heat):
    stack = heat.add_stack('s', env={'resource_registry': {'resources': {
        'x': {'hooks': ['pre-create', 'post-create']},
        'y': {'hooks': 'post-create'}}}})
    heat.add_resource(stack, 'x')
    rows = by_resource(manager.list('s'))
    assert set(rows) == {'x'}
    assert rows['x']['action'] == 'CREATE'


def test_list_unknown_stack(manager):
    with pytest.raises(exceptions.BreakpointCommandError,
                       match='^Stack not found: nope$'):
        manager.list('nope')


def test_finished_stack_has_no_timeout(manager, heat):
    heat.add_stack('s', status='CREATE_COMPLETE', env=env_with('a'),
                   timeout_mins=5)
    assert manager.list('s')[0]['timeout_remaining'] == ''


# -- show --------------------------------------------------------------------

SECRET_TEMPLATE = {
    'heat_template_version': '2018-08-31',
    'parameters': {'db_pass': {'type': 'string', 'hidden': True},
                   'size': {'type': 'number'}},
    'resources': {'a2': {'type': 'OS::Heat::TestResource', 'properties': {
        'value': {'list_join': ['-', [{'get_param': 'db_pass'}, 'x']]},
        'size': {'get_param': 'size'}}}},
}


def test_show_masks_inputs_and_gives_neighbours(manager, heat,
                                                nested_stack):
    stack = nested_stack[0]
    heat._templates[stack['id']] = SECRET_TEMPLATE
    heat.add_event(stack, 'a2', reasons.held('a2', 'CREATE', 'pre-create'),
                   '2024-01-01T00:01:00Z', status='IN_PROGRESS',
                   properties={'value': 'hunter2-x', 'size': 3,
                               'admin_password': 'p', 'api_token': 't',
                               'nested': {'ssh_key': 'k', 'name': 'n'},
                               'empty_secret': ''})
    heat.add_event(stack, 'a2', 'later noise', '2024-01-01T00:01:01Z')
    shown = manager.show('s', 'a2')
    assert shown['state'] == 'held'
    assert shown['breakpoint'] == 'a2'
    assert shown['actions'] == 'CREATE,UPDATE'
    assert shown['inputs'] == {
        'value': MASK, 'size': 3, 'admin_password': MASK, 'api_token': MASK,
        'nested': {'ssh_key': MASK, 'name': 'n'}, 'empty_secret': ''}
    assert 'hunter2' not in repr(shown)
    assert shown['requires'] == ['a1']
    assert shown['required_by'] == []
    assert shown['event']


def test_show_nested_resource(manager, heat, nested_stack):
    inner = nested_stack[1]
    heat.add_event(inner, 'db', 'DB reached', '2024-01-01T00:02:00Z')
    heat.add_event(inner, 'db', 'CREATE paused until Hook pre-create is '
                   'cleared', '2024-01-01T00:02:00Z',
                   properties={'password': 'x'})
    shown = manager.show('s', 'app/db')
    assert shown['resource'] == 'app/db'
    assert shown['inputs'] == {'password': MASK}


def test_show_armed_has_no_inputs(manager, heat, nested_stack):
    shown = manager.show('s', 'b1')
    assert shown['state'] == 'armed'
    assert shown['inputs'] is None


@pytest.mark.parametrize('name, message', [
    ('zz', '^Resource zz not found in stack s$'),
    ('a1', '^No breakpoint on a1 in stack s$'),
    ('a*', 'is a pattern'),
])
def test_show_errors(manager, heat, nested_stack, name, message):
    with pytest.raises(exceptions.BreakpointCommandError, match=message):
        manager.show('s', name)


def test_mask_inputs_cfn_noecho():
    template = {'Parameters': {'P': {'Type': 'String', 'NoEcho': 'true'}},
                'Resources': {'r': {'Properties': {'v': {'Ref': 'P'}}}}}
    assert stock.mask_inputs({'v': 'plain', 'w': 1}, template, 'r') == {
        'v': MASK, 'w': 1}


# -- release / continue / clear / step ----------------------------------------

def test_continue_releases_every_hold_nested_too(manager, heat,
                                                 nested_stack):
    rows = manager.continue_('s')
    assert {row['resource'] for row in rows} == {'a2', 'app/db'}
    assert sorted((s['stack_id'].split('/')[0], s['resource_name'],
                   s['data']['unset_hook'], s['data'][protocol.SIGNAL_KEY])
                  for s in heat.signals) == [
        ('s', 'a2', 'pre-create', 'continue'),
        ('s-app-x', 'db', 'pre-create', 'continue')]


def test_continue_with_nothing_held(manager, heat):
    heat.add_stack('s', status='CREATE_COMPLETE', env=env_with('a'))
    with pytest.raises(exceptions.BreakpointCommandError,
                       match='^Nothing is held in stack s$'):
        manager.continue_('s')


def test_clear_releases_a_held_resource(manager, heat, nested_stack):
    rows, result = manager.clear('s', 'app/db')
    assert result == 'released'
    [signal] = heat.signals
    assert signal['resource_name'] == 'db'
    assert signal['data'] == {
        'unset_hook': 'pre-create', protocol.SIGNAL_KEY: 'clear',
        protocol.SIGNAL_HELD_SINCE_KEY: rows[0]['held_since']}


def test_clear_armed_during_the_operation_disarms_it_there(
        manager, heat, nested_stack):
    rows, result = manager.clear('s', 'b1')
    assert (rows, result) == ([], 'disarmed')
    assert heat.updates == []
    [signal] = heat.signals
    assert signal['resource_name'] == 'b1'
    assert signal['data'] == {protocol.COMMAND_KEY: 'clear',
                              protocol.COMMAND_PATH_KEY: 'b1'}


def test_set_arms_a_resource_in_the_running_operation(manager, heat,
                                                      nested_stack):
    assert manager.set('s', 'app/db') == 'armed'
    [signal] = heat.signals
    # To the stack the user named, with the path below it: the nested
    # stack may not exist yet.
    assert signal['resource_name'] == 'app'
    assert signal['stack_id'].startswith('s/')
    assert signal['data'] == {protocol.COMMAND_KEY: 'set',
                              protocol.COMMAND_PATH_KEY: 'app/db'}


def test_set_on_an_idle_stack_is_refused(manager, heat):
    heat.add_stack('s', status='CREATE_COMPLETE', env=env_with('a'))
    with pytest.raises(exceptions.BreakpointCommandError,
                       match='no operation in progress'):
        manager.set('s', 'a')
    assert heat.signals == []


def test_continue_to_runs_to_one_resource(manager, heat, nested_stack):
    released = manager.continue_('s', to='b1')
    assert {row['resource'] for row in released} == {'a2', 'app/db'}
    commands = [s for s in heat.signals if protocol.COMMAND_KEY in s['data']]
    assert [(c['resource_name'], c['data'][protocol.COMMAND_KEY])
            for c in commands] == [('b1', 'to')]
    releases = [s['data'][protocol.SIGNAL_KEY] for s in heat.signals
                if protocol.SIGNAL_KEY in s['data']]
    assert releases == ['run to', 'run to']


def test_clear_armed_on_an_idle_stack_patches_it_out(manager, heat):
    heat.add_stack('s', status='CREATE_COMPLETE', env=env_with('a', 'b'))
    rows, result = manager.clear('s', 'a')
    assert result == 'removed'
    [update] = heat.updates
    assert update['existing'] is True
    assert update['template'] is None
    [name] = update['environment_files']
    sent = json.loads(update['files'][name])
    assert sent['resource_registry'] == {'resources': {'a': {'hooks': []}}}
    assert [e['resource'] for e in
            sent['parameter_defaults'][registry.MARKER]] == ['b']


def test_clear_unknown_breakpoint(manager, heat, nested_stack):
    with pytest.raises(exceptions.BreakpointCommandError,
                       match='^No breakpoint a1 in stack s$'):
        manager.clear('s', 'a1')


def test_release_signal_failure_is_one_line(manager, heat, nested_stack):
    with mock.patch.object(heat.resources, 'signal', side_effect=heat_exc.
                           HTTPBadRequest('ERROR: bad\nsecond line')):
        with pytest.raises(exceptions.BreakpointCommandError) as err:
            manager.release('s', 'a2', protocol.RELEASE_CLEAR)
    assert '\n' not in str(err.value)
    assert str(err.value).startswith('Cannot release a2:')


def test_step_releases_with_step(manager, heat, nested_stack):
    rows = manager.step('s', 'a2')
    assert [row['resource'] for row in rows] == ['a2']
    [signal] = heat.signals
    assert signal['data'] == {
        'unset_hook': 'pre-create', protocol.SIGNAL_KEY: 'step',
        protocol.SIGNAL_HELD_SINCE_KEY: rows[0]['held_since']}


def test_step_without_resource_steps_everything_held(manager, heat,
                                                     nested_stack):
    rows = manager.step('s')
    assert {row['resource'] for row in rows} == {'a2', 'app/db'}
    assert len(heat.signals) == 2


def test_step_on_stock_heat_says_it_needs_the_plugin(manager):
    fake = fakes.FakeHeat()
    stack = fake.add_stack('s', env=env_with('a'))
    fake.add_resource(stack, 'a')
    fake.add_event(stack, 'a', 'CREATE paused until Hook pre-create is '
                   'cleared', '2024-01-01T00:00:10Z')
    with pytest.raises(exceptions.BreakpointCommandError,
                       match='needs the heat-breakpoint engine plugin'):
        bp_v1.BreakpointManager(fake).step("s")
    assert fake.signals == []


# -- wait --------------------------------------------------------------------

def test_wait_stops_at_the_hold(manager, heat):
    stack = heat.add_stack('s', env=env_with('a2'))
    heat.add_resource(stack, 'a2', 'INIT_COMPLETE')
    sleeps = []

    def sleep(seconds):
        sleeps.append(seconds)
        heat._resources[stack['id']][0].update(
            resource_status='CREATE_IN_PROGRESS',
            resource_status_reason=reasons.held('a2', 'CREATE',
                                                'pre-create'))

    found, held = manager.wait('s', poll=2, sleep=sleep)
    assert sleeps == [2]
    assert [row['resource'] for row in held] == ['a2']


def test_wait_stops_when_finished(manager, heat):
    heat.add_stack('s', status='CREATE_COMPLETE')
    found, held = manager.wait('s', sleep=pytest.fail)
    assert held == [] and found.stack_status == 'CREATE_COMPLETE'


def test_timeout_defaults_to_heats_hour(manager, heat):
    heat.add_stack('s', env=env_with('a'),
                   creation_time='2024-01-01T00:00:00Z')
    with mock.patch.object(timeutils, 'utcnow', return_value=datetime.
                           datetime(2024, 1, 1, 0, 15, 30)):
        [row] = manager.list('s')
    assert row['timeout_remaining'] == '0:44:30'


def test_update_timeout_counts_from_the_update(manager, heat):
    heat.add_stack('s', status='UPDATE_IN_PROGRESS', env=env_with('a'),
                   creation_time='2023-01-01T00:00:00Z',
                   updated_time='2024-01-01T00:00:00Z', timeout_mins=10)
    with mock.patch.object(timeutils, 'utcnow', return_value=datetime.
                           datetime(2024, 1, 1, 0, 20, 0)):
        [row] = manager.list('s')
    assert row['timeout_remaining'] == '0:00:00'


# -- the server's breakpoints view -------------------------------------------

def view_rows(inner_ident, outer_ident):
    return [
        {'resource': 'app/db', 'state': 'held', 'action': 'CREATE',
         'held_since': '2024-01-01T00:02:00Z',
         'timeout_remaining': '0:50:00', 'hook': 'pre-create',
         'form': 'plugin', 'breakpoint': 'app/db', 'stack': inner_ident,
         'resource_name': 'db'},
        {'resource': 'web*', 'state': 'armed', 'action': 'CREATE,UPDATE',
         'held_since': '', 'timeout_remaining': '0:50:00', 'hook': None,
         'form': None, 'breakpoint': 'web*', 'stack': outer_ident,
         'resource_name': 'web*'},
    ]


@pytest.fixture
def served(heat):
    """A Heat whose API answers the breakpoints view (for stack ``s``)."""
    outer = heat.add_stack('s')
    inner = heat.add_stack('s-app-x', parent='app')
    heat.add_resource(inner, 'db', 'CREATE_IN_PROGRESS')
    heat.view_rows = view_rows('s-app-x/' + inner['id'], 's/' + outer['id'])

    def view(path):
        return {'stack': {'id': outer['id'], 'stack_name': 's',
                          'stack_status': 'CREATE_IN_PROGRESS'},
                'breakpoints': heat.view_rows}
    heat.breakpoints_view = view
    return heat


def test_list_reads_the_view_in_one_request(manager, served):
    rows = manager.list('s', nested_depth=2)
    assert rows == served.view_rows
    assert served.http_gets == ['/stacks/s/breakpoints?nested_depth=2']
    # nothing else was asked: no stack, resources, environment or events
    assert served.event_queries == []


def test_view_path_quotes_the_stack_name(manager, served):
    manager.list('my stack?')
    assert served.http_gets == ['/stacks/my%20stack%3F/breakpoints']


def test_list_falls_back_without_the_view(manager, heat, nested_stack):
    rows = by_resource(manager.list('s'))
    assert heat.http_gets == ['/stacks/s/breakpoints']
    assert rows['a2']['state'] == 'held' and rows['b1']['state'] == 'armed'


def test_missing_stack_is_named_after_the_view_404(manager, heat):
    with pytest.raises(exceptions.BreakpointCommandError,
                       match='^Stack not found: nope$'):
        manager.list('nope')
    assert heat.http_gets == ['/stacks/nope/breakpoints']


def test_view_server_error_is_one_clear_line(manager, heat):
    def broken(path):
        raise heat_exc.HTTPInternalServerError('engine exploded')
    heat.breakpoints_view = broken
    with pytest.raises(exceptions.BreakpointCommandError,
                       match='^Cannot list breakpoints of s: .*exploded'):
        manager.list('s')


def test_set_says_why_the_view_cannot_answer(manager, heat):
    def database_down(path):
        raise heat_exc.HTTPServiceUnavailable(
            'heat-engine cannot reach its database: try again when the '
            'database is back')
    heat.breakpoints_view = database_down
    with pytest.raises(exceptions.BreakpointCommandError,
                       match='^Cannot list breakpoints of s: .*cannot '
                             'reach its database'):
        manager.set('s', 'a')
    assert heat.signals == []


def test_set_reads_the_stack_from_the_view(manager, served):
    sid = manager.get_stack('s').id
    served.add_resource(served.find(sid), 'a', 'INIT_COMPLETE')
    served.breakpoints_view = lambda path: {
        'stack': {'id': sid, 'stack_name': 's',
                  'stack_status': 'CREATE_IN_PROGRESS'},
        'breakpoints': [],
        'resource': {'state': 'waiting', 'resource': 'a'}}
    assert manager.set('s', 'a') == 'armed'
    assert served.http_gets[0] == '/stacks/s/breakpoints'
    [signal] = served.signals
    assert signal['stack_id'] == 's/' + sid


def test_step_and_continue_release_what_the_view_lists(manager, served):
    manager.step('s')
    manager.continue_('s')
    inner = served.view_rows[0]['stack']
    assert [(s['stack_id'], s['resource_name'], s['data'][protocol.SIGNAL_KEY])
            for s in served.signals] == [(inner, 'db', 'step'),
                                         (inner, 'db', 'continue')]


def test_clear_of_an_armed_pattern_found_in_the_view(manager, served):
    with mock.patch.object(manager.commands, 'command') as command:
        rows, result = manager.clear('s', 'web*')
    assert (rows, result) == ([], 'disarmed')
    stack, name, kind = command.call_args[0]
    assert (stack.stack_name, name, kind) == ('s', 'web*', 'clear')


# -- clear: every kind armed on the resource -----------------------------

def _armed(resource, when, state=bp_v1.ARMED):
    return {'resource': resource, 'state': state, 'when': when}


def test_clear_disarms_every_kind_armed_on_the_resource():
    rows = [_armed('c', 'after'), _armed('c', 'before'),
            _armed('c', 'failed', bp_v1.DISARMED), _armed('d', 'before')]
    assert commanding.armed_whens(rows, 'c', {'state': 'armed',
                                              'when': 'after'},
                                  'CREATE') == ['before', 'after']


def test_clear_of_a_resource_a_pattern_arms_uses_the_view_of_it():
    assert commanding.armed_whens([_armed('c*', 'after')], 'c1', {
        'state': 'armed', 'when': 'after'}, 'CREATE') == ['after']
    assert commanding.armed_whens([], 'c1', {'state': 'disarmed',
                                             'when': 'after'},
                                  'CREATE') == []


def test_clear_sends_no_kind_the_running_action_refuses():
    # An update's "changed" is no kind of a create: cleared as before.
    assert commanding.armed_whens([_armed('c', 'changed')], 'c', {
        'state': 'armed', 'when': 'changed'}, 'CREATE') == ['before']
    assert commanding.armed_whens([_armed('c', 'changed')], 'c', {
        'state': 'armed', 'when': 'changed'}, 'UPDATE') == ['changed']
