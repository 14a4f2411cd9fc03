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
"""Holds after an action and on failure: the words, and what a release
leaves for the re-dispatched check (the engine half is proven against the
real Heat in tests/functional/test_outcomes.py)."""

import json
from unittest import mock

from heat.common import exception
import pytest

from heat_breakpoint.db import resource_data
from heat_breakpoint.engine.check import hold_records
from heat_breakpoint.engine.check import outcomes
from heat_breakpoint.engine.commands import releases
from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons


# -- the words ---------------------------------------------------------------

@pytest.mark.parametrize('when, hook, expected', [
    ('before', 'pre-create', {'name': 'app/db', 'action': 'CREATE',
                              'hook': 'pre-create'}),
    ('after', 'post-create', {'name': 'app/db', 'action': 'CREATE',
                              'hook': 'post-create', 'when': 'after'}),
    ('failed', 'post-update', {'name': 'app/db', 'action': 'UPDATE',
                               'hook': 'post-update', 'when': 'failed'}),
])
def test_every_kind_of_hit_parses_back(when, hook, expected):
    text = reasons.held('app/db', expected['action'], hook, when)
    assert reasons.parse_held(text) == expected


def test_hit_words():
    assert reasons.held('a', 'CREATE', 'post-create', 'after') == \
        'Breakpoint a reached after CREATE (post-create)'
    assert reasons.held('f', 'DELETE', 'post-delete', 'failed') == \
        'Breakpoint f reached on DELETE failure'
    assert reasons.held('b', 'UPDATE', 'pre-update') == \
        'Breakpoint b reached before UPDATE (pre-update)'


@pytest.mark.parametrize('text', [
    None, '', 'state changed',
    'Breakpoint a reached after CREATE (pre-create)',
    'Breakpoint a reached before CREATE (post-create)',
    'Breakpoint a reached on create failure',
    'ValueError: resources.f: Test Resource failed f',
])
def test_other_reasons_are_not_hits(text):
    assert reasons.parse_held(text) is None


def test_retry_is_a_release():
    assert protocol.RELEASE_RETRY in protocol.RELEASES


# -- releases ----------------------------------------------------------------

def record(when, action='CREATE', **extra):
    found = {'breakpoint': 'f', 'action': action, 'traversal': 't1',
             'hook': 'post-' + action.lower(), 'prior': [action, 'FAILED',
                                                         'boom']}
    if when != breakpoints.BEFORE:
        found['when'] = when
    found.update(extra)
    return found


@pytest.mark.parametrize('when, how, resource_id, words', [
    ('before', 'retry', None, 'f is held before CREATE, not on its failure'),
    ('after', 'retry', None, 'f is held after CREATE, not on its failure'),
    ('failed', 'retry', 'phys-1', 'left physical resource phys-1'),
    ('failed', 'step', None, 'use retry, continue or clear'),
])
def test_refusals_name_the_problem(when, how, resource_id, words):
    assert words in outcomes.refusal(record(when), how, resource_id)


@pytest.mark.parametrize('when, how, action, resource_id', [
    ('failed', 'retry', 'CREATE', None),
    ('failed', 'retry', 'UPDATE', 'phys-1'),
    ('failed', 'continue', 'CREATE', 'phys-1'),
    ('failed', 'clear', 'CREATE', None),
    ('after', 'step', 'CREATE', 'phys-1'),
    ('before', 'step', 'CREATE', None),
])
def test_fitting_releases_pass(when, how, action, resource_id):
    assert outcomes.refusal(record(when, action), how, resource_id) is None


class FakeResource:
    """Just the resource data and state the notes use."""

    FAILED, COMPLETE = 'FAILED', 'COMPLETE'

    def __init__(self, data=None, traversal='t1', resource_id=None):
        self._data = dict(data or {})
        self.stack = mock.Mock(current_traversal=traversal)
        self.name = 'f'
        self.resource_id = resource_id

    def data(self):
        return self._data

    def data_set(self, key, value):
        self._data[key] = value

    def data_delete(self, key):
        self._data.pop(key, None)


def test_after_release_only_propagates():
    rsrc = FakeResource()
    outcomes.released(rsrc, record('after'), protocol.RELEASE_CONTINUE)
    assert outcomes.resume(rsrc) is True
    assert resource_data.RESUME_KEY not in rsrc.data()
    # Once: the next check of the resource acts again.
    assert outcomes.resume(rsrc) is False


@pytest.mark.parametrize('how', [protocol.RELEASE_CONTINUE,
                                 protocol.RELEASE_CLEAR,
                                 protocol.RELEASE_HOOK_CLEAR])
def test_failure_let_go_is_raised_again_in_heats_words(how):
    rsrc = FakeResource()
    held = record('failed', error='ValueError: resources.f: boom')
    outcomes.released(rsrc, held, how)
    with pytest.raises(exception.ResourceFailure) as raised:
        outcomes.resume(rsrc)
    assert str(raised.value) == 'ValueError: resources.f: boom'
    assert raised.value.action == 'CREATE'
    assert resource_data.RESUME_KEY not in rsrc.data()


def test_retry_puts_the_resource_back_as_before_its_action():
    rsrc = FakeResource()
    held = record('failed', before=['INIT', 'COMPLETE', ''])
    with mock.patch.object(hold_records, 'set_state') as set_state:
        outcomes.released(rsrc, held, protocol.RELEASE_RETRY)
    set_state.assert_called_once_with(rsrc, 'INIT', 'COMPLETE', '')
    assert outcomes.resume(rsrc) is False  # the action runs again


def test_a_note_of_an_older_operation_is_dropped():
    rsrc = FakeResource({resource_data.RESUME_KEY: json.dumps(
        {'traversal': 'old', 'then': outcomes.FAIL, 'action': 'CREATE',
         'error': 'boom'})})
    assert outcomes.resume(rsrc) is False
    assert resource_data.RESUME_KEY not in rsrc.data()


def refused_retry(rsrc):
    """Why check_release refuses a retry of RSRC's pre-create hook."""
    with pytest.raises(exception.InvalidBreakPointHook) as raised:
        releases.check_release(rsrc, {'unset_hook': 'pre-create',
                                      protocol.SIGNAL_KEY: 'retry'})
    return str(raised.value)


def test_check_release_refuses_retry_of_a_hold_before():
    rsrc = FakeResource({resource_data.HOLD_KEY: json.dumps(dict(
        record('before'), hook='pre-create'))})
    assert 'not on its failure' in refused_retry(rsrc)


def test_check_release_refuses_retry_of_a_plain_hook():
    rsrc = FakeResource()
    assert 'f is not held on failure' in refused_retry(rsrc)


def test_check_release_lets_other_signals_through():
    rsrc = FakeResource()
    releases.check_release(rsrc, {'unset_hook': 'pre-create'})
    releases.check_release(rsrc, {'some': 'signal'})
    releases.check_release(rsrc, 'text signal')
