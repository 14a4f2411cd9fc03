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
"""A release's facts, gathered once at its start (:func:`releases.gather`).

Here what they say from a hold's record, the signal and the database's
answers (replaced): which way out the release takes, whether its
operation may go on, and that where the stack sits is asked once. The
release itself, on the real local Heat: ``tests/functional/test_step.py``,
``test_cancel.py``, ``test_release_interrupted.py``.
"""

import types
from unittest import mock

import pytest

from heat_breakpoint.db import operation_state
from heat_breakpoint.engine.check import facts
from heat_breakpoint.engine.check import hold_records
from heat_breakpoint.engine.commands import releases
from heat_breakpoint.model import protocol

PLACE = facts.Place(('outer',), 'root-id', 'root-t', 'UPDATE')
HOOK = 'pre-create'


def held(**record):
    found = dict(hook=HOOK, path='outer/r', action='CREATE',
                 breakpoint='r', traversal='t1', root_traversal='root-t')
    found.update(record)
    return found


@pytest.fixture
def rsrc():
    return types.SimpleNamespace(
        name='r', stack=types.SimpleNamespace(id='stack-id'))


@pytest.fixture
def stored():
    """The hold's record and the database's answers, as a test sets them."""
    answers = types.SimpleNamespace(record=held(), ended=None,
                                    traversal='t1')
    with mock.patch.object(hold_records, 'record_of',
                           lambda rsrc: answers.record), \
            mock.patch.object(facts, 'place',
                              return_value=PLACE) as place, \
            mock.patch.object(operation_state, 'forward_ended',
                              lambda *key: answers.ended), \
            mock.patch.object(operation_state, 'stored_traversal',
                              lambda stack_id: answers.traversal):
        answers.place = place
        yield answers


def signal(how=None, **extra):
    details = {'unset_hook': HOOK}
    if how is not None:
        details[protocol.SIGNAL_KEY] = how
    details.update(extra)
    return details


def test_a_native_hook_is_none_of_ours(rsrc, stored):
    stored.record = None
    assert releases.gather(rsrc, signal()) is None
    stored.record = held(hook='pre-update')
    assert releases.gather(rsrc, signal()) is None
    assert not stored.place.called


def test_a_step_while_the_operation_runs(rsrc, stored):
    found = releases.gather(rsrc, signal(protocol.RELEASE_STEP))
    assert found == releases.Release(stored.record, protocol.RELEASE_STEP,
                                     None, PLACE, None)
    assert found.convergence
    stored.place.assert_called_once_with(rsrc.stack)


def test_a_release_of_no_known_way_is_a_stock_hook_clear(rsrc, stored):
    assert releases.gather(rsrc, signal('jump')).how == \
        protocol.RELEASE_HOOK_CLEAR
    assert releases.gather(rsrc, signal()).how == \
        protocol.RELEASE_HOOK_CLEAR


@pytest.mark.parametrize('ended, traversal, why', [
    (operation_state.CANCELLED, 't1', protocol.RELEASE_CANCEL),
    (operation_state.SUPERSEDED, 't1', protocol.RELEASE_SUPERSEDED),
    (None, 't2', protocol.RELEASE_SUPERSEDED),
    (None, '', protocol.RELEASE_FAILED),
])
def test_an_operation_that_may_not_go_on_says_why(rsrc, stored, ended,
                                                  traversal, why):
    stored.ended, stored.traversal = ended, traversal
    found = releases.gather(rsrc, signal(protocol.RELEASE_CONTINUE))
    assert (found.how, found.ended) == (why, why)


def test_a_continue_carries_its_depth(rsrc, stored):
    assert releases.gather(rsrc, signal(
        protocol.RELEASE_CONTINUE,
        **{protocol.SIGNAL_DEPTH_KEY: 2})).depth == 2
    assert releases.gather(rsrc, signal(
        protocol.RELEASE_CONTINUE,
        **{protocol.SIGNAL_DEPTH_KEY: True})).depth is None


def test_a_legacy_hold_reads_nothing_more(rsrc, stored):
    stored.record = held(traversal=None)
    del stored.record['traversal']
    found = releases.gather(rsrc, signal(protocol.RELEASE_CLEAR))
    assert (found.how, found.ended, found.place) == (
        protocol.RELEASE_CLEAR, None, None)
    assert not found.convergence
    assert not stored.place.called
