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
"""``openstack stack breakpoint ...`` and ``heat-breakpoint`` on a fake Heat.

The OSC commands run through cliff (parsers, formatters, ``-f json``); the
legacy shell runs through its ``main()`` with only the heatclient
``Client`` replaced.
"""

import json
from unittest import mock

from osc_lib import exceptions as osc_exc
import pytest

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons
from heat_breakpoint.model import registry
from heatclient_ext import fakes
from heatclient_ext import shell
from tests.unit import osc_app

COMMANDS = osc_app.COMMANDS


@pytest.fixture
def heat():
    fake = fakes.FakeHeat()
    stack = fake.add_stack('s', env=registry.apply_to_environment(
        {}, breakpoints.parse_names(['a2', 'b1'])))
    fake.add_resource(stack, 'a1', 'CREATE_COMPLETE', required_by=['a2'])
    fake.add_resource(stack, 'a2', 'CREATE_IN_PROGRESS',
                      reasons.held('a2', 'CREATE', 'pre-create'))
    fake.add_resource(stack, 'b1')
    fake.add_event(stack, 'a2', reasons.held('a2', 'CREATE', 'pre-create'),
                   '2024-01-01T00:00:10Z', properties={
                       'breakpoint': 'a2', 'action': 'CREATE',
                       'properties': {'value': 'v', 'db_password': 'p'}})
    return fake


osc = osc_app.run


def test_list_json(heat):
    out, _err = osc(heat, 'list', 's', '-f', 'json')
    assert json.loads(out) == [
        {'Resource': 'a2', 'Action': 'CREATE', 'When': 'before',
         'State': 'held', 'Why': '', 'Source': '',
         'Held Since': '2024-01-01T00:00:10Z',
         'Timeout Remaining': mock.ANY},
        {'Resource': 'b1', 'Action': 'CREATE,UPDATE', 'When': 'before',
         'State': 'armed', 'Why': '', 'Source': '',
         'Held Since': '', 'Timeout Remaining': mock.ANY}]


def test_list_value_and_yaml(heat):
    out, _err = osc(heat, 'list', 's', '-f', 'value', '-c', 'Resource',
                    '-c', 'State')
    assert out.split('\n')[:2] == ['a2 held', 'b1 armed']
    out, _err = osc(heat, 'list', 's', '-f', 'yaml')
    assert 'Resource: a2' in out


def test_show_json_masks(heat):
    out, _err = osc(heat, 'show', 's', 'a2', '-f', 'json')
    shown = json.loads(out)
    assert shown['inputs'] == {'value': 'v', 'db_password': '******'}
    assert shown['requires'] == ['a1']
    assert shown['state'] == 'held'


def test_show_table(heat):
    out, _err = osc(heat, 'show', 's', 'a2')
    assert 'db_password="******"' in out
    assert 'value="v"' in out


@pytest.fixture
def odd_heat(heat):
    """A held resource next to an odd name, with odd inputs.

    Breakpoint names cannot hold control characters, but other resource
    names, status reasons and inputs come from the template as they are.
    """
    stack = heat.add_stack('odd', env=registry.apply_to_environment(
        {}, breakpoints.parse_names(['r'])))
    heat.add_resource(stack, 'e\x1b[2J', 'CREATE_COMPLETE',
                      'done \x1b]0;title\x07', required_by=['r'])
    reason = reasons.held('r', 'CREATE', 'pre-create')
    heat.add_resource(stack, 'r', 'CREATE_IN_PROGRESS', reason)
    heat.add_event(stack, 'r', reason, '2024-01-01T00:00:10Z',
                   properties={'breakpoint': 'r', 'action': 'CREATE',
                               'properties': {'size': 3, 'flag': False,
                                              'none': None,
                                              'text': 'a\x1b[31mb'}})
    return heat


def test_show_shell_has_no_python_reprs(odd_heat):
    out, _err = osc(odd_heat, 'show', 'odd', 'r', '-f', 'shell')
    assert 'None' not in out and 'False' not in out and "{'" not in out
    assert '\x1b' not in out
    assert 'requires="[\\"e\\u001b[2J\\"]"' in out, out
    assert ('inputs="{\\"flag\\": false, \\"none\\": null, '
            '\\"size\\": 3, \\"text\\": \\"a\\u001b[31mb\\"}"'
            in out), out


def test_show_table_numbers_and_none_as_json(odd_heat):
    out, _err = osc(odd_heat, 'show', 'odd', 'r')
    for line in ('size=3', 'flag=false', 'none=null',
                 'text="a\\u001b[31mb"', 'e\\x1b[2J'):
        assert line in out, out
    assert '\x1b' not in out


def test_untrusted_text_escaped_in_text_formats_exact_in_json(odd_heat):
    for fmt in ('table', 'value', 'shell'):
        out, _err = osc(odd_heat, 'show', 'odd', 'r', '-f', fmt)
        assert '\x1b' not in out, (fmt, out)
        assert 'e\\x1b[2J' in out or 'e\\u001b[2J' in out, (fmt, out)
    out, _err = osc(odd_heat, 'show', 'odd', 'r', '-f', 'json')
    shown = json.loads(out)
    assert shown['requires'] == ['e\x1b[2J']
    assert shown['inputs'] == {'size': 3, 'flag': False, 'none': None,
                               'text': 'a\x1b[31mb'}


def test_continue_and_clear(heat):
    out, err = osc(heat, 'continue', 's', '-f', 'json')
    assert json.loads(out) == [
        {'Resource': 'a2', 'Action': 'CREATE', 'Result': 'released'}]
    assert err == ''
    assert heat.signals[0]['data'][protocol.SIGNAL_KEY] == 'continue'
    out, _err = osc(heat, 'clear', 's', 'a2', '-f', 'value')
    assert out.strip() == 'a2 CREATE released'
    assert heat.signals[1]['data'][protocol.SIGNAL_KEY] == 'clear'


def test_continue_on_stock_heat_says_what_still_holds():
    fake = fakes.FakeHeat()
    stack = fake.add_stack('s', env=registry.apply_to_environment(
        {}, breakpoints.parse_names(['a'])))
    fake.add_resource(stack, 'a')
    fake.add_event(stack, 'a', 'CREATE paused until Hook pre-create is '
                   'cleared', '2024-01-01T00:00:10Z')
    _out, err = osc(fake, 'continue', 's')
    assert 'no breakpoint plugin' in err
    assert fake.signals[0]['data'] == {'unset_hook': 'pre-create',
                                       protocol.SIGNAL_KEY: 'continue'}


@pytest.mark.parametrize('verb, argv, message', [
    ('list', ['nope'], 'Stack not found: nope'),
    ('show', ['s', 'zz'], 'Resource zz not found in stack s'),
    ('step', ['s', 'zz'], 'Nothing is held at zz in stack s'),
    ('clear', ['s', 'zz'], 'No breakpoint zz in stack s'),
    ('set', ['s', 'zz'], 'Resource zz not found in stack s'),
    ('show', ['s', 'a//b'], 'empty path segment'),
])
def test_errors_are_command_errors(heat, verb, argv, message):
    with pytest.raises(osc_exc.CommandError) as err:
        osc(heat, verb, *argv)
    assert message in str(err.value)
    assert '\n' not in str(err.value)


def test_help_is_the_docstring_first_line():
    for cls in COMMANDS.values():
        first = cls.__doc__.splitlines()[0]
        assert first.endswith('.') and first[0].isupper()


# -- heat-breakpoint ---------------------------------------------------------

@pytest.fixture
def legacy(heat, monkeypatch):
    monkeypatch.setenv('OS_AUTH_TYPE', 'none')
    monkeypatch.setenv('OS_ENDPOINT', 'http://heat.example/v1/admin')
    client = mock.patch.object(shell.heat_client, 'Client',
                               return_value=heat)
    with client as made:
        yield made


def test_legacy_list_and_continue(legacy, heat, capsys):
    assert shell.main(['breakpoint-list', 's', '--format', 'json']) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r['resource'], r['state']) for r in rows] == [
        ('a2', 'held'), ('b1', 'armed')]
    assert legacy.call_args.kwargs['endpoint_override'] == \
        'http://heat.example/v1/admin'
    assert shell.main(['breakpoint-continue', 's']) == 0
    assert capsys.readouterr().out == 'Released a2 (CREATE)\n'


def test_legacy_show_and_clear(legacy, heat, capsys):
    assert shell.main(['breakpoint-show', 's', 'a2']) == 0
    out = capsys.readouterr().out
    assert '"db_password": "******"' in out
    assert shell.main(['breakpoint-clear', 's', 'a2']) == 0
    assert heat.signals[-1]['data'][protocol.SIGNAL_KEY] == 'clear'


@pytest.mark.parametrize('argv, message', [
    (['breakpoint-list', 'nope'], 'Stack not found: nope'),
    (['breakpoint-step', 's', 'zz'], 'Nothing is held at zz in stack s'),
    (['stack-update', 's', '--existing', '--nobreakpoint', 'zz'],
     'Stack s has no breakpoint zz'),
])
def test_legacy_errors_one_line_exit_1(legacy, capsys, argv, message):
    code = shell.main(argv)
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith(message) and err.count('\n') == 1, err


def test_legacy_usage_error_is_argparse_exit_2(legacy, capsys):
    with pytest.raises(SystemExit) as exit_:
        shell.main(['breakpoint-continue'])
    assert exit_.value.code == 2
    assert 'the following arguments are required' in capsys.readouterr().err


def test_legacy_stack_update_nobreakpoint_existing(legacy, heat):
    heat.find('s')['stack_status'] = 'CREATE_COMPLETE'
    with mock.patch('heatclient.v1.shell.do_stack_list'):
        assert shell.main(['stack-update', 's', '--existing',
                           '--nobreakpoint', 'b1']) == 0
    [update] = heat.updates
    assert update['existing'] is True
    [name] = update['environment_files']
    sent = json.loads(update['files'][name])
    assert sent['resource_registry']['resources']['b1'] == {'hooks': []}
    assert [e['resource'] for e in
            sent['parameter_defaults'][registry.MARKER]] == ['a2']


def test_legacy_stack_create_with_breakpoint(legacy, heat, tmp_path):
    template = tmp_path / 't.yaml'
    template.write_text('heat_template_version: 2018-08-31\n'
                        'resources: {r1: {type: OS::Heat::None}}\n')
    with mock.patch('heatclient.v1.shell.do_stack_list'):
        assert shell.main(['stack-create', 'new', '-f', str(template),
                           '--breakpoint', 'r1']) == 0
    [create] = heat.creates
    [name] = create['environment_files']
    assert json.loads(create['files'][name])['resource_registry'] == {
        'resources': {'r1': {'hooks': ['pre-create', 'pre-update']}}}


def test_legacy_shell_keeps_stock_commands(capsys):
    parser = shell.BreakpointShell().get_subcommand_parser('1')
    assert parser.prog == 'heat-breakpoint'
    commands = shell.BreakpointShell()
    commands.get_subcommand_parser('1')
    for name in ('stack-create', 'stack-update', 'stack-list',
                 'resource-list', 'hook-clear', 'event-list',
                 'breakpoint-list', 'breakpoint-show', 'breakpoint-step',
                 'breakpoint-continue', 'breakpoint-clear'):
        assert name in commands.subcommands
    create = commands.subcommands['stack-create']
    assert '--breakpoint' in create._option_string_actions
    assert '--pre-create' in create._option_string_actions
    update = commands.subcommands['stack-update']
    assert {'--nobreakpoint', '--no-breakpoint', '--existing'} <= set(
        update._option_string_actions)


def test_legacy_needs_an_endpoint_without_auth(monkeypatch, capsys):
    monkeypatch.setenv('OS_AUTH_TYPE', 'none')
    monkeypatch.delenv('OS_ENDPOINT', raising=False)
    assert shell.main(['breakpoint-list', 's']) == 1
    assert capsys.readouterr().err == \
        '--os-auth-type none needs --os-endpoint or env[OS_ENDPOINT]\n'


@pytest.mark.parametrize('verb', ['list', 'continue'])
@pytest.mark.parametrize('depth', ['-1', 'two'])
def test_nested_depth_must_be_a_whole_number(heat, verb, depth, capsys):
    with pytest.raises(SystemExit):
        osc(heat, verb, 's', '--nested-depth', depth)
    assert "--nested-depth: must be a whole number from 0, got '%s'" % \
        depth in capsys.readouterr().err
    assert heat.signals == []
