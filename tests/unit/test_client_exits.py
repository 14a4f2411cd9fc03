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
"""A new way out of a hold needs no front end's code.

An exit declared in :mod:`heat_breakpoint.model.kinds` (here ``skip``,
made up: only the table knows it) is a manager call, an OSC command, a
legacy shell command, an answer of ``watch -i`` and of the Debug
Console and a DAP request, each in the exit's own words; what the engine
does with it is the engine's.
"""

import io
from unittest import mock

import pytest

from heat_breakpoint.model import kinds
from heat_breakpoint.model import protocol
from heatclient_ext.dap import session as dap_session
from heatclient_ext import exceptions
from heatclient_ext import fakes
from heatclient_ext.osc import breakpoint as osc_breakpoint
from heatclient_ext.terminal import watch_session
from heatclient_ext.v1 import answers
from heatclient_ext.v1 import manager as bp_v1
from heatclient_ext.v1 import shell_commands
from heatclient_ext.v1 import viewing

SKIP = kinds.Exit(
    name='skip', whens=(kinds.FAILED.when,), actions=('update',),
    policy_help='Skip a failed update.',
    prompt_help='skip R     keep R as it was; the update goes on',
    summary='Keep a resource whose update failed as it was.',
    details='The update goes on without it.',
    shell_details='The update goes on.',
    resource_help='Resource path of the resource whose update failed.',
    doing='skipping %s', done='skipped',
    said='skipping %s: the update goes on without it',
    refused_action='%(name)s failed its %(action)s: skip is for an update')


@pytest.fixture
def skip(monkeypatch):
    """The table with ``skip`` added, as a new entry in kinds.py would."""
    monkeypatch.setattr(kinds, 'EXITS', kinds.EXITS + (SKIP,))
    return SKIP


def held_row(name, when='failed', action='UPDATE'):
    return {'resource': name, 'resource_name': name, 'state': 'held',
            'action': action, 'hook': 'post-%s' % action.lower(),
            'form': 'plugin', 'breakpoint': name, 'when': when,
            'held_since': 't1', 'why': '', 'stack': 's/1'}


@pytest.fixture
def heat():
    fake = fakes.FakeHeat()
    fake.stack = fake.add_stack('s')
    for name in ('f', 'c', 'a'):
        fake.add_resource(fake.stack, name, 'UPDATE_FAILED', 'boom')
    return fake


def held_in(heat, *rows):
    return mock.patch.object(viewing.Reader, 'held_now',
                             return_value=(None, [
                                 dict(row, stack='s/%s' % heat.stack['id'])
                                 for row in rows]))


def test_the_manager_takes_it_by_name_and_signals_it(heat, skip):
    with held_in(heat, held_row('f'), held_row('a', 'after')):
        rows = bp_v1.BreakpointManager(heat).take_exit('s', 'f', 'skip')
    assert [row['resource'] for row in rows] == ['f']
    assert heat.signals == [{
        'stack_id': 's/%s' % heat.stack['id'], 'resource_name': 'f',
        'data': {'unset_hook': 'post-update', protocol.SIGNAL_KEY: 'skip',
                 protocol.SIGNAL_HELD_SINCE_KEY: 't1'}}]


@pytest.mark.parametrize('row, words', [
    (held_row('a', 'after'), 'a is held after UPDATE: skip does not apply'),
    (held_row('c', action='CREATE'),
     'c failed its CREATE: skip is for an update'),
])
def test_the_manager_refuses_it_in_its_words(heat, skip, row, words):
    with held_in(heat, row):
        with pytest.raises(exceptions.USER_ERRORS) as raised:
            bp_v1.BreakpointManager(heat).take_exit('s', row['resource'],
                                                    skip)
    assert str(raised.value) == words
    assert heat.signals == []


def test_an_exit_the_table_does_not_know_is_refused(heat):
    with pytest.raises(exceptions.USER_ERRORS, match='called skip'):
        bp_v1.BreakpointManager(heat).take_exit('s', 'f', 'skip')
    assert heat.signals == []


def test_it_is_an_answer_of_the_prompt(skip):
    held = [held_row('f'), held_row('a', 'after')]
    assert answers.parse_answer('skip f', held) == ('skip', 'f')
    with pytest.raises(answers.AnswerError, match='"skip" takes one'):
        answers.parse_answer('skip', held)


def test_its_answer_may_name_the_one_hold_it_applies_to(monkeypatch):
    optional = kinds.Exit(name='skip', whens=('failed',), policy_help='',
                          prompt_help='skip [R]', name_optional=True,
                          which='the failed update')
    monkeypatch.setattr(kinds, 'EXITS', kinds.EXITS + (optional,))
    held = [held_row('a', 'after'), held_row('f')]
    assert answers.parse_answer('skip', held) == ('skip', 'f')
    with pytest.raises(answers.AnswerError,
                       match='"skip" takes the failed update, e.g. '
                             '"skip f"'):
        answers.parse_answer('skip', held + [held_row('g')])


def test_watch_sends_it_and_says_its_words(skip):
    sess = watch_session.Session(mock.Mock(), 's', io.StringIO())
    sess.manager = mock.Mock()
    sess.say = mock.Mock()
    sess._do(answers.Answer('skip', 'f'), [held_row('f')])
    sess.manager.take_exit.assert_called_once_with('s', 'f', skip)
    sess.say.assert_called_once_with(
        'skipping f: the update goes on without it')


@pytest.fixture
def dap(tmp_path):
    sent = []
    sess = dap_session.Session(sent.append)
    sess.sent = sent
    sess.manager = mock.Mock()
    sess._started('s/1')
    sess.holds.update([held_row('f')], sess.breakpoints.hits)
    return sess


def test_it_is_a_request_of_the_dap_adapter(dap, skip):
    tid = dap.holds.threads['f']
    dap.handle({'seq': 3, 'type': 'request', 'command': 'skip',
                'arguments': {'threadId': tid}})
    answer = [m for m in dap.sent if m.get('type') == 'response'][-1]
    assert answer['success'], answer
    dap.manager.exit_holds.assert_called_once_with('s/1', 'f', skip)
    dap.manager.take_exit.assert_called_once_with('s/1', 'f', skip)
    assert 'f' not in dap.holds.held  # its thread went
    assert any(m.get('event') == 'output' and m['body']['output'] ==
               'skipping f: the update goes on without it\n'
               for m in dap.sent)


def test_the_dap_adapter_knows_no_request_the_table_lacks(dap):
    dap.handle({'seq': 3, 'type': 'request', 'command': 'skip',
                'arguments': {'threadId': 1}})
    answer = [m for m in dap.sent if m.get('type') == 'response'][-1]
    assert not answer['success']
    assert answer['message'] == 'skip is not supported'


def test_a_refused_exit_leaves_the_editor_stopped(dap, skip):
    dap.manager.exit_holds.side_effect = exceptions.BreakpointCommandError(
        'no')
    with pytest.raises(exceptions.BreakpointCommandError):
        dap.control.take_exit(skip, 'f')
    assert 'f' in dap.holds.held
    dap.manager.take_exit.assert_not_called()


def test_it_is_an_answer_of_the_debug_console(dap, skip):
    assert dap.control.evaluate('skip f') == 'skipping f'
    dap.manager.take_exit.assert_called_once_with('s/1', 'f', skip)


def _parser(cls):
    return cls(mock.Mock(), None).get_parser('openstack stack breakpoint')


def test_it_is_an_openstack_command(heat):
    cls = osc_breakpoint.exit_command(SKIP)
    assert cls.__name__ == 'SkipBreakpoint'
    parser = _parser(cls)
    assert parser.description.startswith(SKIP.summary)
    args = parser.parse_args(['s', 'f'])
    assert not hasattr(args, 'template')  # it takes no fix first
    with held_in(heat, held_row('f')):
        columns, rows = cls(mock.Mock(), None).carry_out(heat, args)
    assert columns == osc_breakpoint.RELEASE_COLUMNS
    assert list(rows) == [('f', 'UPDATE', 'skipped')]
    assert heat.signals[0]['data'][protocol.SIGNAL_KEY] == 'skip'


def test_the_table_makes_the_commands_setup_cfg_names():
    assert osc_breakpoint.RetryBreakpoint.__name__ == 'RetryBreakpoint'
    assert osc_breakpoint.RetainBreakpoint.__doc__.startswith(
        kinds.RETAIN.summary)
    assert hasattr(_parser(osc_breakpoint.RetryBreakpoint).parse_args(
        ['s', 'f']), 'template')  # a retry may take a fix first
    assert shell_commands.do_breakpoint_retain.__doc__.startswith(
        kinds.RETAIN.summary)


def test_it_is_a_legacy_shell_command(heat, capsys):
    command = shell_commands.exit_command(SKIP)
    assert command.__name__ == 'do_breakpoint_skip'
    assert command.__doc__ == ('Keep a resource whose update failed as it '
                               'was.\n\n    The update goes on.\n    ')
    assert [names for names, _kw in command.arguments] == [
        ('stack',), ('resource',)]
    with held_in(heat, held_row('f')):
        command(heat, mock.Mock(stack='s', resource='f'))
    assert capsys.readouterr().out == 'Skipping f (UPDATE)\n'
    assert heat.signals[0]['data'][protocol.SIGNAL_KEY] == 'skip'
