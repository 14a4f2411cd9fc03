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
"""``breakpoint retry``: the client half (held rows come from the view)."""

from unittest import mock

import pytest

from heat_breakpoint.model import protocol
from heatclient_ext import exceptions
from heatclient_ext import fakes
from heatclient_ext.osc import breakpoint as osc_breakpoint
from heatclient_ext.v1 import manager as bp_v1
from heatclient_ext.v1 import viewing


def held_row(stack, name, when):
    return {'resource': name, 'resource_name': name, 'state': 'held',
            'action': 'CREATE', 'hook': 'post-create', 'form': 'plugin',
            'breakpoint': '*', 'when': when,
            'stack': '%s/%s' % (stack['stack_name'], stack['id'])}


@pytest.fixture
def heat():
    fake = fakes.FakeHeat()
    fake.stack = fake.add_stack('s')
    fake.add_resource(fake.stack, 'f', 'CREATE_FAILED', 'boom')
    fake.add_resource(fake.stack, 'a', 'CREATE_COMPLETE')
    return fake


def manager_with(heat, *rows):
    manager = bp_v1.BreakpointManager(heat)
    manager.reading.held_now = mock.Mock(return_value=(None, list(rows)))
    return manager


def test_retry_signals_the_failed_resource(heat):
    manager = manager_with(heat, held_row(heat.stack, 'f', 'failed'),
                           held_row(heat.stack, 'a', 'after'))
    rows = manager.retry('s', 'f')
    assert [row['resource'] for row in rows] == ['f']
    assert heat.signals == [{
        'stack_id': 's/%s' % heat.stack['id'], 'resource_name': 'f',
        'data': {'unset_hook': 'post-create',
                 protocol.SIGNAL_KEY: protocol.RELEASE_RETRY}}]


def test_retry_of_a_hold_that_is_not_a_failure_is_refused(heat):
    manager = manager_with(heat, held_row(heat.stack, 'a', 'after'))
    with pytest.raises(exceptions.USER_ERRORS) as raised:
        manager.retry('s', 'a')
    assert 'a is held after CREATE, not on its failure' in str(raised.value)
    assert heat.signals == []


def test_retry_of_nothing_held_names_what_is(heat):
    manager = manager_with(heat, held_row(heat.stack, 'f', 'failed'))
    manager.reading.describe = mock.Mock(return_value=None)
    with pytest.raises(exceptions.USER_ERRORS) as raised:
        manager.retry('s', 'a')
    assert 'Nothing is held at a' in str(raised.value)
    assert '(held: f)' in str(raised.value)
    assert heat.signals == []


def test_osc_retry_rows(heat):
    args = mock.Mock(stack='s', resource='f', template=None,
                     environment=None, parameter=None)
    with mock.patch.object(viewing.Reader, 'held_now',
                           return_value=(None, [held_row(
                               heat.stack, 'f', 'failed')])):
        columns, rows = osc_breakpoint.retry_breakpoint(heat, args)
    assert columns == osc_breakpoint.RELEASE_COLUMNS
    assert rows == [('f', 'CREATE', 'retried')]


def test_legacy_shell_retry(heat, capsys):
    from heatclient_ext.v1 import shell_commands as shell
    args = mock.Mock(stack='s', resource='f', template=None,
                     environment=None, parameter=None)
    with mock.patch.object(viewing.Reader, 'held_now',
                           return_value=(None, [held_row(
                               heat.stack, 'f', 'failed')])):
        shell.do_breakpoint_retry(heat, args)
    assert capsys.readouterr().out == 'Retrying f (CREATE)\n'
    assert heat.signals[0]['data'][protocol.SIGNAL_KEY] == 'retry'


def test_step_of_everything_leaves_held_failures_alone(heat):
    heat.add_resource(heat.stack, 'b', 'CREATE_IN_PROGRESS')
    before = dict(held_row(heat.stack, 'b', 'before'), hook='pre-create')
    manager = manager_with(heat, held_row(heat.stack, 'f', 'failed'),
                           before)
    rows = manager.step('s')
    assert [row['resource'] for row in rows] == ['b']
    assert [s['resource_name'] for s in heat.signals] == ['b']


def _lost(*args, **kwargs):
    from heatclient import exc as heat_exc
    raise heat_exc.HTTPInternalServerError(
        '{"error": {"type": "MessagingTimeout", "traceback": null}}')


@pytest.mark.parametrize('still, words', [
    (True, 'it is still held: the release did not take effect'),
    (False, 'it is no longer held: the release took effect'),
])
def test_a_release_whose_engine_stopped_answering_says_what_happened(
        heat, still, words):
    row = held_row(heat.stack, 'f', 'failed')
    row['held_since'] = '2026-12-04T10:00:00Z'
    manager = manager_with(heat)
    manager.reading.held_now = mock.Mock(
        return_value=(None, [row] if still else []))
    heat.resources.signal = _lost
    with pytest.raises(exceptions.USER_ERRORS) as raised:
        manager.release('s', 'f', protocol.RELEASE_RETRY, [row])
    text = str(raised.value)
    assert text.startswith('Cannot tell whether f was released: the '
                           'heat-engine that took the command stopped '
                           'answering (MessagingTimeout); ')
    assert words in text


def test_a_release_names_the_hold_it_means(heat):
    row = dict(held_row(heat.stack, 'f', 'failed'),
               held_since='2026-12-04T10:00:00Z')
    bp_v1.BreakpointManager(heat).release('s', 'f', protocol.RELEASE_RETRY,
                                          [row])
    assert heat.signals[-1]['data'][protocol.SIGNAL_HELD_SINCE_KEY] == \
        '2026-12-04T10:00:00Z'
