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
"""Help texts and messages of both shells, built from the real parsers."""

import contextlib
import io
import json
from unittest import mock

import pytest

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import reasons
from heat_breakpoint.model import registry
from heatclient_ext import fakes
from heatclient_ext.osc import breakpoint as osc_bp
from heatclient_ext import shell
from heatclient_ext.v1 import manager as bp_v1
from tests.unit import osc_app

VERBS = {'list': osc_bp.ListBreakpoint, 'show': osc_bp.ShowBreakpoint,
         'step': osc_bp.StepBreakpoint, 'set': osc_bp.SetBreakpoint,
         'continue': osc_bp.ContinueBreakpoint,
         'clear': osc_bp.ClearBreakpoint}


def osc_help(verb):
    """``openstack stack breakpoint VERB --help`` as cliff prints it."""
    from openstackclient import shell as osc_shell
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            osc_shell.main(['stack', 'breakpoint', verb, '--help'])
        except SystemExit:
            pass
    return ' '.join(out.getvalue().split())


def legacy_help(command):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            shell.main(['help', command])
        except SystemExit:
            pass
    return ' '.join(out.getvalue().split())


@pytest.mark.parametrize('verb', sorted(VERBS))
def test_osc_help_has_no_rst_markup(verb):
    text = osc_help(verb)
    assert 'usage:' in text
    assert '``' not in text and ':func:' not in text


@pytest.mark.parametrize('verb', sorted(VERBS))
def test_legacy_help_has_no_rst_markup(verb):
    text = legacy_help('breakpoint-' + verb)
    assert 'usage: heat-breakpoint breakpoint-' + verb in text
    assert '``' not in text


def test_clear_help_says_what_clear_does():
    text = osc_help('clear')
    assert 'refused' not in text
    assert 'disarmed for the rest of that operation' in text
    assert 'every breakpoint on a resource' in text
    assert 'runs a stack update' in text
    assert 'names them first' in text
    assert 'disarmed for the rest of it' in legacy_help('breakpoint-clear')


def test_step_help_says_what_omitting_the_resource_does():
    assert 'default: every held resource' in osc_help('step')
    assert 'Without a resource every held resource is stepped' in \
        osc_help('step')
    assert 'default: every held resource' in legacy_help('breakpoint-step')


def test_show_has_nested_depth_like_list_and_continue():
    for verb in ('show', 'list', 'continue'):
        assert '--nested-depth <nested-depth>' in osc_help(verb), verb
    assert '--nested-depth <DEPTH>' in legacy_help('breakpoint-show')


@pytest.fixture
def heat():
    fake = fakes.FakeHeat()
    fake.add_stack('idle', status='CREATE_COMPLETE',
                   env=registry.apply_to_environment(
                       {}, breakpoints.parse_names(['a', 'b']) +
                       [breakpoints.parse_name('c', 'create')]))
    stack = fake.find('idle')
    for name in ('a', 'b', 'c'):
        fake.add_resource(stack, name, 'CREATE_COMPLETE')
    return fake


run_osc = osc_app.run


def test_set_on_idle_stack_suggests_each_shells_spelling(heat, monkeypatch,
                                                         capsys):
    from osc_lib import exceptions as osc_exc
    with pytest.raises(osc_exc.CommandError) as raised:
        run_osc(heat, 'set', 'idle', 'a')
    assert ('use "openstack stack update --existing --breakpoint a idle" '
            'for the next one') in str(raised.value)
    monkeypatch.setenv('OS_AUTH_TYPE', 'none')
    monkeypatch.setenv('OS_ENDPOINT', 'http://heat.example/v1/admin')
    with mock.patch.object(shell.heat_client, 'Client', return_value=heat):
        assert shell.main(['breakpoint-set', 'idle', 'a']) == 1
    err = capsys.readouterr().err
    assert ('use "heat-breakpoint stack-update idle --existing '
            '--breakpoint a" for the next one') in err
    assert 'openstack' not in err


def test_clear_on_idle_stack_says_first_that_an_update_runs(heat):
    said = []

    def update(**fields):
        said.append('update')
        heat.updates.append(fields)

    heat.stacks.update = update
    rows, result = bp_v1.BreakpointManager(heat).clear(
        'idle', 'a', announce=said.append)
    assert result == 'removed'
    # said before the update, naming the breakpoints it will meet
    assert said == [
        'Stack idle has no operation running: removing breakpoint a from '
        'its stored environment runs a stack update (--existing) now; it '
        'will hold at: b', 'update']


def test_clear_on_idle_stack_osc_prints_the_note(heat):
    out, err = run_osc(heat, 'clear', 'idle', 'b', '-f', 'value')
    assert out.strip() == 'b  removed'
    assert 'runs a stack update (--existing) now; it will hold at: a' in err


def test_update_note_without_other_update_breakpoints():
    rows = [{'state': 'armed', 'breakpoint': 'a', 'action': 'CREATE,UPDATE'},
            {'state': 'armed', 'breakpoint': 'c', 'action': 'CREATE'}]
    assert bp_v1.update_note('s', 'a', rows).endswith(
        '; no other breakpoint will hold it')


def test_legacy_output_escapes_template_text(monkeypatch, capsys):
    fake = fakes.FakeHeat()
    stack = fake.add_stack('s', env=registry.apply_to_environment(
        {}, breakpoints.parse_names(['r'])))
    fake.add_resource(stack, 'e\x1b[2J', 'CREATE_COMPLETE',
                      required_by=['r'])
    reason = reasons.held('r', 'CREATE', 'pre-create')
    fake.add_resource(stack, 'r', 'CREATE_IN_PROGRESS', reason)
    fake.add_event(stack, 'r', reason, '2024-01-01T00:00:10Z',
                   properties={'breakpoint': 'r', 'action': 'CREATE',
                               'properties': {'v': 'a\x9bb'}})
    monkeypatch.setenv('OS_AUTH_TYPE', 'none')
    monkeypatch.setenv('OS_ENDPOINT', 'http://heat.example/v1/admin')
    with mock.patch.object(shell.heat_client, 'Client', return_value=fake):
        assert shell.main(['breakpoint-show', 's', 'r']) == 0
        out = capsys.readouterr().out
        assert '\x1b' not in out and '\x9b' not in out
        assert 'e\\x1b[2J' in out and 'a\\x9bb' in out
        assert shell.main(['breakpoint-show', 's', 'r', '--format',
                           'json']) == 0
        shown = json.loads(capsys.readouterr().out)
        assert shown['requires'] == ['e\x1b[2J']
        assert shown['inputs'] == {'v': 'a\x9bb'}
