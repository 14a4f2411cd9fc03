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
"""Where ``--wait`` with breakpoints ends (:func:`waiting.follow`).

The events are what Heat's API gives, one poll's worth at a time; the
end of the operation that took the waited one's place ends the wait only
once the waited one began.
"""

import io
import types

import pytest

from heatclient_ext.osc import waiting

NAME = 'st'
STACK_ID = 'a3c5'


def _event(status, n, resource=NAME):
    phys = STACK_ID if resource == NAME else 'r%d' % n
    return types.SimpleNamespace(
        id='e%d' % n, resource_name=resource, resource_status=status,
        resource_status_reason='', physical_resource_id=phys,
        event_time='2026-12-05T00:00:%02dZ' % n,
        links=[{'rel': 'stack', 'href': 'http://h/stacks/%s/%s' % (
            NAME, STACK_ID)}])


def _follow(monkeypatch, action, polls, status='', held=()):
    """follow() over ``polls`` (a list of event lists, one per poll)."""
    polls = list(polls)
    seen = []

    def get_events(client, stack_id, nested_depth, event_args):
        seen.append(event_args['marker'])
        assert len(seen) < 50, 'the wait never ended'
        return polls.pop(0) if polls else []

    monkeypatch.setattr(waiting.event_utils, 'get_events', get_events)
    monkeypatch.setattr(waiting.time, 'sleep', lambda s: None)
    held = list(held)
    return waiting.follow(
        None, NAME, action, lambda: held.pop(0) if held else [],
        lambda: status, io.StringIO(), poll=0)


def test_a_cancelled_update_ends_at_its_rollbacks_end(monkeypatch):
    status, message, held = _follow(monkeypatch, 'UPDATE', [
        [_event('UPDATE_IN_PROGRESS', 1), _event('UPDATE_IN_PROGRESS', 2,
                                                 resource='b')],
        [_event('ROLLBACK_IN_PROGRESS', 3)],
        [_event('ROLLBACK_COMPLETE', 4)]])
    assert (status, held) == ('ROLLBACK_COMPLETE', [])
    assert 'Stack st ROLLBACK_COMPLETE' in message


def test_a_superseded_create_ends_with_the_update(monkeypatch):
    status, _message, _held = _follow(monkeypatch, 'CREATE', [
        [_event('CREATE_IN_PROGRESS', 1)],
        [_event('UPDATE_IN_PROGRESS', 2)], [_event('UPDATE_COMPLETE', 3)]])
    assert status == 'UPDATE_COMPLETE'
    assert status in waiting.BUILT


def test_a_resources_end_does_not_end_the_wait(monkeypatch):
    status, _message, _held = _follow(monkeypatch, 'UPDATE', [
        [_event('UPDATE_IN_PROGRESS', 1),
         _event('CREATE_COMPLETE', 2, resource='b')],
        [_event('UPDATE_COMPLETE', 3)]])
    assert status == 'UPDATE_COMPLETE'


@pytest.mark.parametrize('stale', ['CREATE_COMPLETE', 'ROLLBACK_COMPLETE'])
def test_the_state_before_the_operation_began_does_not_end_it(
        monkeypatch, stale):
    # no event of this update yet: the stack's state read meanwhile is
    # the last operation's, and the wait goes on to its own end
    status, _message, _held = _follow(
        monkeypatch, 'UPDATE',
        [[], [], [], [_event('UPDATE_IN_PROGRESS', 1)], [],
         [_event('UPDATE_FAILED', 2)]], status=stale)
    assert status == 'UPDATE_FAILED'


def test_once_begun_the_stacks_state_ends_it(monkeypatch):
    # the rollback's events went unseen (two quiet polls): the state says
    status, _message, _held = _follow(
        monkeypatch, 'UPDATE', [[_event('UPDATE_IN_PROGRESS', 1)], [], []],
        status='ROLLBACK_COMPLETE')
    assert status == 'ROLLBACK_COMPLETE'


def test_a_hold_returns_the_rows(monkeypatch):
    row = {'resource': 'b'}
    status, message, held = _follow(
        monkeypatch, 'CREATE', [[_event('CREATE_IN_PROGRESS', 1)]],
        held=[[], [row]])
    assert (status, message, held) == (None, None, [row])
