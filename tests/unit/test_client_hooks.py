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
"""The create/update hooks on heatclient's REAL commands and parsers.

Commands are built through cliff exactly as ``openstack`` builds them, so
the hooks come from the installed entry points; only the orchestration
client is fake. What the client sends is then merged by Heat's own code
(``heat.common.environment_util`` and ``heat.engine.environment``, as
heat-api and heat-engine do) to check what the stack really stores.
"""

import copy
import io
import json
import os
import pathlib
import re
from unittest import mock
from urllib import parse

from heat.common import environment_format as heat_env_fmt
from heat.common import environment_util
from heat.engine import environment as heat_environment
from heatclient.osc.v1 import stack as heat_stack
from osc_lib import exceptions as osc_exc
import pytest
import yaml

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import registry
from heatclient_ext import fakes
from heatclient_ext.osc import hooks

TEMPLATE = {
    'heat_template_version': '2018-08-31',
    'parameters': {'flavor': {'type': 'string', 'default': 'm1'}},
    'resources': dict({name: {'type': 'OS::Heat::None'}
                       for name in ('a1', 'a2', 'b1')},
                      nested={'type': 'OS::Heat::Stack'}),
}
MARKER = registry.MARKER


def make_command(cls, cmd_name, client):
    app = mock.Mock()
    app.command_manager.namespace = 'openstack.cli'
    app.client_manager.orchestration = client
    app.stdout, app.stderr = io.StringIO(), io.StringIO()
    return cls(app, None, cmd_name=cmd_name)


def run(cls, cmd_name, client, argv):
    cmd = make_command(cls, cmd_name, client)
    parser = cmd.get_parser('openstack ' + cmd_name)
    args = parser.parse_args(argv)
    cmd.run(args)
    return cmd, args


def create(client, argv):
    return run(heat_stack.CreateStack, 'stack create', client, argv)


def update(client, argv):
    return run(heat_stack.UpdateStack, 'stack update', client, argv)


@pytest.fixture
def template(tmp_path):
    path = tmp_path / 'tmpl.yaml'
    path.write_text(yaml.safe_dump(TEMPLATE))
    return str(path)


@pytest.fixture
def heat():
    return fakes.FakeHeat()


def write_env(tmp_path, name, env):
    path = tmp_path / name
    path.write_text(env if isinstance(env, str) else yaml.safe_dump(env))
    return str(path)


def sent_files(fields):
    """The environment files as heatclient sent them, parsed, in order."""
    return [(name, json.loads(fields['files'][name]))
            for name in fields.get('environment_files') or []]


def heat_merge(fields, stored=None, template=TEMPLATE):
    """What Heat stores for this request (heat-api + heat-engine code)."""
    # heat-api drops the merged environment once files are listed
    params = {} if fields.get('environment_files') else \
        heat_env_fmt.validate(dict(fields['environment']))
    heat_env_fmt.default_for_missing(params)
    schemata = {name: mock.Mock(type='String')
                for name in (template or {}).get('parameters', {})}
    environment_util.merge_environments(
        fields.get('environment_files'), fields['files'], params, schemata)
    if stored is None:
        env = heat_environment.Environment(params)
    else:
        # Environment keeps (and load() updates) the dicts it is given
        before = heat_environment.Environment(copy.deepcopy(stored))
        env = heat_environment.Environment(
            copy.deepcopy(before.env_as_dict()))
        env.load(params)
    return env.user_env_as_dict()


def hooks_of(env, *path):
    node = env['resource_registry'].get('resources', {})
    for segment in path:
        node = node.get(segment, {})
    value = node.get('hooks', [])
    return [value] if isinstance(value, str) else list(value)


def marker_names(env):
    return [entry['resource'] for entry in
            env.get('parameter_defaults', {}).get(MARKER, [])]


# -- the parsers -------------------------------------------------------------

def test_real_parsers_load_our_hooks_without_clash(heat):
    for cls, name in ((heat_stack.CreateStack, 'stack create'),
                      (heat_stack.UpdateStack, 'stack update')):
        cmd = make_command(cls, name, heat)
        assert [ext.name for ext in cmd._hooks] == ['breakpoint']
        assert isinstance(cmd._hooks['breakpoint'].obj,
                          hooks._BreakpointHook)
        parser = cmd.get_parser('openstack ' + name)
        options = parser._option_string_actions
        assert '--breakpoint' in options
        # heatclient's own options survive next to ours
        assert '--pre-' + name.split()[1] in options
        assert '--environment' in options and '--wait' in options


def test_update_parser_accepts_both_negative_spellings(heat):
    cmd = make_command(heat_stack.UpdateStack, 'stack update', heat)
    parser = cmd.get_parser('openstack stack update')
    args = parser.parse_args(['s', '--no-breakpoint', 'a', '--nobreakpoint',
                              'b', '--breakpoint', 'c', '--existing'])
    assert args.no_breakpoints == ['a', 'b']
    assert args.breakpoints == ['c']
    assert args.existing is True


def test_create_has_no_negative_option(heat):
    cmd = make_command(heat_stack.CreateStack, 'stack create', heat)
    parser = cmd.get_parser('openstack stack create')
    assert '--no-breakpoint' not in parser._option_string_actions


# -- what create sends -------------------------------------------------------

def test_create_without_breakpoints_sends_what_heatclient_sends(
        heat, template, tmp_path):
    env = write_env(tmp_path, 'env.yaml', {'parameters': {'flavor': 'x'}})
    cmd, args = create(heat, ['s', '-t', template, '-e', env])
    fields = heat.creates[0]
    assert args.environment == [env]
    assert fields['environment_files'] == [pathlib.Path(env).as_uri()]
    assert cmd._hooks['breakpoint'].obj._prepared is None


def test_create_breakpoint_alone(heat, template):
    create(heat, ['s', '-t', template, '--breakpoint', 'a2'])
    fields = heat.creates[0]
    [(name, sent)] = sent_files(fields)
    assert name.endswith('/breakpoints.yaml')
    assert sent == {
        'resource_registry': {'resources': {'a2': {
            'hooks': ['pre-create', 'pre-update']}}},
        'parameter_defaults': {MARKER: [
            {'resource': 'a2', 'actions': ['create', 'update']}]},
    }
    stored = heat_merge(fields)
    assert hooks_of(stored, 'a2') == ['pre-create', 'pre-update']
    assert marker_names(stored) == ['a2']
    # the temporary copy is gone once the command returned
    assert not os.path.exists(parse.urlparse(name).path)


def test_create_nested_and_repeated_breakpoints(heat, template):
    create(heat, ['s', '-t', template, '--breakpoint', 'a1',
                  '--breakpoint', 'nested/inner'])
    stored = heat_merge(heat.creates[0])
    assert hooks_of(stored, 'a1') == ['pre-create', 'pre-update']
    assert hooks_of(stored, 'nested', 'inner') == ['pre-create',
                                                   'pre-update']
    assert marker_names(stored) == ['a1', 'nested/inner']


def test_env_file_section_is_rewritten(heat, template, tmp_path):
    env = write_env(tmp_path, 'env.yaml', {
        'parameters': {'flavor': 'big'},
        'breakpoints': [{'resource': 'b1', 'action': 'create'}, 'a1']})
    create(heat, ['s', '-t', template, '-e', env])
    fields = heat.creates[0]
    names = [name for name, _sent in sent_files(fields)]
    assert names[0].endswith('/0/env.yaml')
    for _name, sent in sent_files(fields):
        assert 'breakpoints' not in sent
    stored = heat_merge(fields)
    assert stored['parameters'] == {'flavor': 'big'}
    assert hooks_of(stored, 'b1') == ['pre-create']
    assert hooks_of(stored, 'a1') == ['pre-create', 'pre-update']
    assert marker_names(stored) == ['b1', 'a1']


def test_spec_mapping_form_of_the_section(heat, template, tmp_path):
    env = write_env(tmp_path, 'env.yaml',
                    'breakpoints:\n  resource: a2\n')
    create(heat, ['s', '-t', template, '-e', env])
    assert marker_names(heat_merge(heat.creates[0])) == ['a2']


def test_breakpoints_survive_heat_merge_of_several_files(
        heat, template, tmp_path):
    # Heat keeps non-parameter defaults only from the first file with
    # parameter_defaults, and only the last file's registry resources.
    first = write_env(tmp_path, 'first.yaml', {
        'parameter_defaults': {'nested_only_param': 'x'},
        'resource_registry': {'resources': {'a1': {
            'hooks': 'pre-delete'}}}})
    second = write_env(tmp_path, 'second.yaml', {
        'resource_registry': {'resources': {'b1': {
            'restricted_actions': 'replace'}}},
        'breakpoints': 'a2'})
    create(heat, ['s', '-t', template, '-e', first, '-e', second,
                  '--breakpoint', 'b1'])
    fields = heat.creates[0]
    sent = sent_files(fields)
    assert len(sent) == 2, 'no generated file was needed'
    assert MARKER in sent[0][1]['parameter_defaults']
    stored = heat_merge(fields)
    assert stored['parameter_defaults']['nested_only_param'] == 'x'
    assert marker_names(stored) == ['a2', 'b1']
    assert hooks_of(stored, 'a2') == ['pre-create', 'pre-update']
    assert hooks_of(stored, 'b1') == ['pre-create', 'pre-update']
    assert stored['resource_registry']['resources']['b1'][
        'restricted_actions'] == 'replace'


def test_user_hooks_on_the_same_resource_are_kept(heat, template, tmp_path):
    env = write_env(tmp_path, 'env.yaml', {
        'resource_registry': {'resources': {'a1': {'hooks': 'pre-delete'}}}})
    create(heat, ['s', '-t', template, '-e', env, '--breakpoint', 'a1'])
    stored = heat_merge(heat.creates[0])
    assert sorted(hooks_of(stored, 'a1')) == [
        'pre-create', 'pre-delete', 'pre-update']
    assert stored['parameter_defaults'][MARKER] == [
        {'resource': 'a1', 'actions': ['create', 'update'],
         'native_hooks': 'pre-delete'}]


def test_relative_registry_urls_still_resolve(heat, template, tmp_path):
    (tmp_path / 'sub').mkdir()
    (tmp_path / 'sub' / 'child.yaml').write_text(yaml.safe_dump({
        'heat_template_version': '2018-08-31', 'resources': {}}))
    env = write_env(tmp_path, 'env.yaml', {
        'resource_registry': {'My::Child': 'sub/child.yaml'},
        'breakpoints': ['a1']})
    create(heat, ['s', '-t', template, '-e', env])
    fields = heat.creates[0]
    child_url = (tmp_path / 'sub' / 'child.yaml').resolve().as_uri()
    [(_name, sent)] = [item for item in sent_files(fields)
                       if 'My::Child' in item[1].get(
                           'resource_registry', {})]
    assert sent['resource_registry']['My::Child'] == child_url
    assert child_url in fields['files']


# -- what update sends -------------------------------------------------------

STORED = registry.apply_to_environment(
    {'parameters': {'flavor': 'm2'},
     'resource_registry': {'resources': {'b1': {'hooks': 'pre-delete'}}}},
    breakpoints.parse_names(['a1', 'b1', 'nested/inner']))


@pytest.fixture
def stack(heat):
    return heat.add_stack('s', status='CREATE_COMPLETE', env=STORED)


def test_no_breakpoint_with_existing_really_removes(heat, stack):
    update(heat, ['s', '--existing', '--no-breakpoint', 'a1',
                  '--nobreakpoint', 'b1', '--no-breakpoint', 'nested/inner'])
    [fields] = heat.updates
    assert fields['existing'] is True
    [(_name, sent)] = sent_files(fields)
    assert sent == {
        'resource_registry': {'resources': {
            'a1': {'hooks': []}, 'b1': {'hooks': ['pre-delete']},
            'nested': {'inner': {'hooks': []}}}},
        'parameter_defaults': {MARKER: []},
    }
    stored = heat_merge(fields, stored=STORED)
    assert hooks_of(stored, 'a1') == []
    assert hooks_of(stored, 'b1') == ['pre-delete']
    assert hooks_of(stored, 'nested', 'inner') == []
    assert marker_names(stored) == []
    assert registry.from_environment(stored) == []
    assert stored['parameters'] == {'flavor': 'm2'}


def test_existing_keeps_other_breakpoints_and_adds_new(heat, stack):
    update(heat, ['s', '--existing', '--no-breakpoint', 'a1',
                  '--breakpoint', 'a2'])
    stored = heat_merge(heat.updates[0], stored=STORED)
    assert marker_names(stored) == ['b1', 'nested/inner', 'a2']
    assert hooks_of(stored, 'a1') == []
    assert hooks_of(stored, 'a2') == ['pre-create', 'pre-update']
    assert sorted(hooks_of(stored, 'b1')) == [
        'pre-create', 'pre-delete', 'pre-update']


def test_existing_with_env_file_holding_registry_resources(
        heat, stack, tmp_path):
    env = write_env(tmp_path, 'env.yaml', {
        'parameter_defaults': {'flavor': 'm3'},
        'resource_registry': {'resources': {'b1': {
            'restricted_actions': 'replace'}}}})
    update(heat, ['s', '--existing', '-e', env, '--no-breakpoint', 'a1'])
    fields = heat.updates[0]
    assert len(sent_files(fields)) == 1
    stored = heat_merge(fields, stored=STORED)
    assert hooks_of(stored, 'a1') == []
    assert marker_names(stored) == ['b1', 'nested/inner']
    assert stored['parameter_defaults']['flavor'] == 'm3'


def test_full_update_drops_breakpoints_not_given_again(
        heat, stack, template, tmp_path):
    env = write_env(tmp_path, 'env.yaml', {'breakpoints': ['a1', 'a2']})
    update(heat, ['s', '-t', template, '-e', env, '--nobreakpoint', 'a1'])
    fields = heat.updates[0]
    assert fields['existing'] is False
    stored = heat_merge(fields)
    assert marker_names(stored) == ['a2']
    assert hooks_of(stored, 'a1') == []


def test_deleting_a_name_from_the_file_removes_it_next_update(
        heat, stack, template, tmp_path):
    env = write_env(tmp_path, 'env.yaml', {'breakpoints': ['a2']})
    update(heat, ['s', '-t', template, '-e', env])
    stored = heat_merge(heat.updates[0])
    assert marker_names(stored) == ['a2']
    assert hooks_of(stored, 'a1') == []


def test_existing_no_op_does_not_touch_the_environment(heat, stack):
    update(heat, ['s', '--existing'])
    fields = heat.updates[0]
    assert 'environment_files' not in fields
    assert fields['environment'] == {}


# -- errors ------------------------------------------------------------------

@pytest.mark.parametrize('argv, message', [
    (['--existing', '--no-breakpoint', 'zz'],
     'Stack s has no breakpoint zz'),
    (['--existing', '--breakpoint', 'a2', '--no-breakpoint', 'a2'],
     'Breakpoint a2 is both added and removed'),
    (['--existing', '--breakpoint', 'a//b'], 'empty path segment'),
    (['--existing', '--breakpoint', 'x', '--files-container', 'c'],
     'cannot be used with --files-container'),
])
def test_update_errors_are_one_line(heat, stack, argv, message):
    with pytest.raises(osc_exc.CommandError) as err:
        update(heat, ['s'] + argv)
    assert message in str(err.value)
    assert '\n' not in str(err.value)
    assert heat.updates == []


def test_unknown_stack_on_existing(heat):
    with pytest.raises(osc_exc.CommandError, match='Stack not found: nope'):
        update(heat, ['nope', '--existing', '--no-breakpoint', 'a'])


def test_breakpoint_on_unknown_resource(heat, template):
    with pytest.raises(osc_exc.CommandError,
                       match="'a9' matches no resource in the template"):
        create(heat, ['s', '-t', template, '--breakpoint', 'a9'])
    assert heat.creates == []


@pytest.mark.parametrize('content, message', [
    ('breakpoints: [a1\n', 'Malformed environment file .*env.yaml: '
                           'environment is not valid YAML'),
    ('breakpoints: {action: create}\n', "missing key 'resource'"),
    ('- just a list\n', 'must be a mapping'),
])
def test_malformed_env_file(heat, template, tmp_path, content, message):
    env = write_env(tmp_path, 'env.yaml', content)
    with pytest.raises(osc_exc.CommandError, match=message):
        create(heat, ['s', '-t', template, '-e', env])


def test_missing_env_file(heat, template, tmp_path):
    with pytest.raises(osc_exc.CommandError,
                       match='Cannot read environment file .*nope.yaml'):
        create(heat, ['s', '-t', template, '-e',
                      str(tmp_path / 'nope.yaml'), '--breakpoint', 'a1'])


# -- --wait ------------------------------------------------------------------

def test_wait_returns_when_held(heat, template, monkeypatch):
    from heat_breakpoint.model import reasons

    def hold_after_create(**fields):
        body = heat.add_stack(fields['stack_name'])
        heat.set_environment(body['id'], registry.apply_to_environment(
            {}, breakpoints.parse_names(['a2'])))
        heat.add_resource(body, 'a1', 'CREATE_COMPLETE')
        heat.add_resource(body, 'a2', 'CREATE_IN_PROGRESS',
                          reasons.held('a2', 'CREATE', 'pre-create'))
        heat.add_event(body, 'a1', 'state changed', '2024-01-01T00:00:03Z',
                       status='CREATE_COMPLETE')
        heat.creates.append(fields)
        return {'stack': {'id': body['id']}}

    monkeypatch.setattr(heat.stacks, 'create', hold_after_create)
    stock_wait = mock.Mock(side_effect=AssertionError('sits out the hold'))
    monkeypatch.setattr(heat_stack.event_utils, 'poll_for_events',
                        stock_wait)
    cmd = make_command(heat_stack.CreateStack, 'stack create', heat)
    args = cmd.get_parser('x').parse_args(
        ['s', '-t', template, '--breakpoint', 'a2', '--wait', '--poll', '1',
         '-f', 'json'])
    cmd.run(args)
    out = json.loads(cmd.app.stdout.getvalue())
    assert out['stack_status'] == 'CREATE_IN_PROGRESS'
    assert out['held_breakpoints'] == 'a2 (CREATE)'
    # the field says it; no extra text spoils the JSON, nothing on stderr
    assert 'held at' not in cmd.app.stderr.getvalue()
    # heatclient's own wait was switched off
    assert not stock_wait.called
    # as a table, the answer follows the table on stdout
    heat.stacks.delete = mock.Mock()
    cmd = make_command(heat_stack.CreateStack, 'stack create', heat)
    args = cmd.get_parser('x').parse_args(
        ['t', '-t', template, '--breakpoint', 'a2', '--wait', '--poll', '1'])
    cmd.run(args)
    out = cmd.app.stdout.getvalue()
    # heatclient's event lines first, in the table format only
    assert re.match(r'2024-01-01 00:00:03Z \S+ \[a1\]: CREATE_COMPLETE  '
                    r'state changed\n\+', out)
    assert out.rstrip('\n').endswith('Stack t is held at: a2 (CREATE)')
    assert re.search(r'\| held_breakpoints +\| a2 \(CREATE\)', out)
    assert cmd.app.stderr.getvalue() == ''


def stack_event(heat, body, status, reason):
    event = heat.add_event(body, body['stack_name'], reason,
                           '2024-01-01T00:00:05Z', status=status)
    event['physical_resource_id'] = body['id']


def test_wait_with_breakpoint_ends_as_heatclients(heat, template,
                                                  monkeypatch):
    # a failed create that rolled back: heatclient ends at its
    # CREATE_FAILED and exits 1, whatever the stack's status by then
    def failed(**fields):
        body = heat.add_stack(fields['stack_name'],
                              status='ROLLBACK_COMPLETE')
        stack_event(heat, body, 'CREATE_IN_PROGRESS', 'Stack CREATE started')
        heat.add_event(body, 'a2', 'boom', '2024-01-01T00:00:04Z',
                       status='CREATE_FAILED')
        stack_event(heat, body, 'CREATE_FAILED', 'Resource CREATE failed')
        stack_event(heat, body, 'ROLLBACK_COMPLETE', 'Stack ROLLBACK done')
        return {'stack': {'id': body['id']}}

    monkeypatch.setattr(heat.stacks, 'create', failed)
    cmd = make_command(heat_stack.CreateStack, 'stack create', heat)
    args = cmd.get_parser('x').parse_args(
        ['s', '-t', template, '--breakpoint', 'a2', '--wait', '--poll', '1'])
    with pytest.raises(osc_exc.CommandError) as raised:
        cmd.run(args)
    assert str(raised.value) == '\n Stack s CREATE_FAILED \n'
    # the events as heatclient prints them, up to where it stops reading
    assert cmd.app.stdout.getvalue().splitlines()[:3] == [
        '2024-01-01 00:00:05Z %s [s]: CREATE_IN_PROGRESS  Stack CREATE '
        'started' % heat._events[heat.find('s')['id']][0]['id'],
        '2024-01-01 00:00:04Z %s [s.a2]: CREATE_FAILED  boom'
        % heat._events[heat.find('s')['id']][1]['id'],
        '2024-01-01 00:00:05Z %s [s]: CREATE_FAILED  Resource CREATE '
        'failed' % heat._events[heat.find('s')['id']][2]['id']]


@pytest.mark.parametrize('command, argv', [
    ('create', ['s2', '--wait']),
    ('create', ['s2', '--wait', '--pre-create', 'a1']),
    ('update', ['s', '--wait']),
    ('update', ['s', '--wait', '--existing', '--no-breakpoint', 'a1',
                '--no-breakpoint', 'b1', '--no-breakpoint', 'nested/inner']),
])
def test_wait_without_breakpoint_is_heatclients(heat, stack, template,
                                                monkeypatch, command, argv):
    stock_wait = mock.Mock(return_value=('%s_COMPLETE' % command.upper(),
                                         ''))
    monkeypatch.setattr(heat_stack.event_utils, 'poll_for_events',
                        stock_wait)
    {'create': create, 'update': update}[command](
        heat, argv[:1] + ['-t', template] + argv[1:])
    assert stock_wait.call_count == 1
    assert stock_wait.call_args.kwargs['action'] == command.upper()


def test_existing_update_keeps_stored_breakpoints_so_the_wait_is_ours(
        heat, stack, monkeypatch):
    stock_wait = mock.Mock(side_effect=AssertionError('not ours'))
    monkeypatch.setattr(heat_stack.event_utils, 'poll_for_events',
                        stock_wait)
    before = heat.add_event(stack, 's', 'Stack CREATE completed',
                            '2024-01-01T00:00:01Z', status='CREATE_COMPLETE')
    before['physical_resource_id'] = stack['id']

    def updated(**fields):
        heat.stacks_updated = fields
        stack['stack_status'] = 'UPDATE_FAILED'
        stack_event(heat, stack, 'UPDATE_FAILED', 'Resource UPDATE failed')

    monkeypatch.setattr(heat.stacks, 'update', updated)
    with pytest.raises(osc_exc.CommandError,
                       match='Stack s UPDATE_FAILED'):
        update(heat, ['s', '--existing', '--wait'])
    # the marker was taken before the update, as heatclient takes it
    marker_query = next(query for query in heat.event_queries
                        if query.get('sort_dir') == 'desc')
    assert marker_query['limit'] == 1
    assert not stock_wait.called


def test_no_breakpoint_removes_a_hand_set_hook_too(heat):
    stored = {'resource_registry': {'resources': {'x': {
        'hooks': ['pre-create', 'post-create']}}}}
    heat.add_stack('h', status='CREATE_COMPLETE', env=stored)
    update(heat, ['h', '--existing', '--no-breakpoint', 'x'])
    stored_after = heat_merge(heat.updates[0], stored=stored)
    assert hooks_of(stored_after, 'x') == ['post-create']


def test_pre_create_hooks_are_not_lost_next_to_breakpoints(heat, template,
                                                           tmp_path):
    # Heat ignores heatclient's merged environment once files are sent
    env = write_env(tmp_path, 'env.yaml', {'parameters': {'flavor': 'x'}})
    create(heat, ['s', '-t', template, '-e', env, '--breakpoint', 'a1',
                  '--pre-create', 'b1', '--pre-create', 'a1'])
    stored = heat_merge(heat.creates[0])
    assert hooks_of(stored, 'b1') == ['pre-create']
    assert hooks_of(stored, 'a1') == ['pre-create', 'pre-update']
    assert marker_names(stored) == ['a1']


def test_pre_update_with_existing_keeps_breakpoint_hooks(heat, stack):
    update(heat, ['s', '--existing', '--breakpoint', 'a2',
                  '--pre-update', 'a1'])
    stored = heat_merge(heat.updates[0], stored=STORED)
    assert hooks_of(stored, 'a1') == ['pre-create', 'pre-update']
    assert hooks_of(stored, 'a2') == ['pre-create', 'pre-update']
    assert marker_names(stored) == ['a1', 'b1', 'nested/inner', 'a2']


# -- --no-breakpoint without --existing ---------------------------------------

def test_full_update_refuses_an_unknown_no_breakpoint(
        heat, stack, template):
    # a3 is neither stored in the stack nor added by this update
    with pytest.raises(osc_exc.CommandError) as raised:
        update(heat, ['s', '-t', template, '--breakpoint', 'a2',
                      '--no-breakpoint', 'a3'])
    message = str(raised.value)
    assert message.startswith('Stack s has no breakpoint a3; closest: '
                              ), message
    assert '(breakpoints: ' in message and 'a2' in message
    assert not heat.updates


def test_full_update_accepts_a_stored_or_added_no_breakpoint(heat, stack,
                                                             template):
    stored = [bp.name for bp in registry.from_environment(
        heat.stacks.environment('s'))]
    assert stored
    update(heat, ['s', '-t', template, '--no-breakpoint', stored[0]])
    assert len(heat.updates) == 1


def test_nested_name_under_a_plain_resource_is_refused(heat, template):
    with pytest.raises(osc_exc.CommandError) as raised:
        create(heat, ['s', '-t', template, '--breakpoint', 'a1/x'])
    assert str(raised.value) == (
        "breakpoint 'a1/x': 'a1' is not a nested stack (OS::Heat::None); "
        "nested stack resources: nested")
    assert not heat.creates
    create(heat, ['s', '-t', template, '--breakpoint', 'nested/x'])
    assert len(heat.creates) == 1


def test_errors_naming_template_resources_are_escaped(heat, tmp_path):
    path = tmp_path / 'odd.yaml'
    path.write_text(yaml.safe_dump({
        'heat_template_version': '2018-08-31',
        'resources': {'web\x1b[2J': {'type': 'OS::Heat::None'}}}))
    with pytest.raises(osc_exc.CommandError) as raised:
        create(heat, ['s', '-t', str(path), '--breakpoint', 'web'])
    assert '\x1b' not in str(raised.value)
    assert 'web\\x1b[2J' in str(raised.value)
