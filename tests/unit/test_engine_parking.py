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
"""How a parked check ends: Heat's question answered from the stack's row.

Heat ends a cancelled check by loading the stack to see whether a newer
traversal waits on the resource. For a check we parked, the stored
traversal answers; for any other check Heat must look itself.
"""

import datetime
import threading
from unittest import mock

import pytest

from heat_breakpoint.db import operation_state
from heat_breakpoint.db import resource_data
from heat_breakpoint.engine.check import parking


@pytest.fixture
def stacks(db):
    with db.begin() as conn:
        conn.exec_driver_sql('CREATE TABLE stack (id VARCHAR(36) PRIMARY '
                             'KEY, current_traversal VARCHAR(36))')
        conn.exec_driver_sql("INSERT INTO stack VALUES ('s1', 't1')")
    parking._parked_check.set(None)
    yield db
    parking._parked_check.set(None)


def _traversal(engine, traversal):
    with engine.begin() as conn:
        conn.exec_driver_sql(
            "UPDATE stack SET current_traversal = ? WHERE id = 's1'",
            (traversal,))


def test_a_check_parked_on_the_current_traversal_needs_nothing(stacks):
    parking._parked_check.set(('r1', 't1'))
    assert parking.newer_traversal_may_wait('r1', 't1', 's1') is False
    # Asked once per park: a second end of a check is Heat's to look at.
    assert parking.newer_traversal_may_wait('r1', 't1', 's1') is True


def test_a_newer_traversal_since_the_park_is_left_to_heat(stacks):
    parking._parked_check.set(('r1', 't1'))
    _traversal(stacks, 't2')
    assert parking.newer_traversal_may_wait('r1', 't1', 's1') is True


def test_a_stack_gone_is_left_to_heat(stacks):
    parking._parked_check.set(('r1', 't1'))
    assert parking.newer_traversal_may_wait('r1', 't1', 'nowhere') is True


@pytest.mark.parametrize('parked', [None, ('r2', 't1'), ('r1', 't0')])
def test_any_other_cancelled_check_is_left_to_heat(stacks, parked):
    parking._parked_check.set(parked)
    with mock.patch.object(operation_state, 'stored_traversal') as stored:
        assert parking.newer_traversal_may_wait('r1', 't1', 's1') is True
    stored.assert_not_called()


def test_a_park_in_another_thread_is_not_this_ones(stacks):
    parking._parked_check.set(('r1', 't1'))
    answers = []
    thread = threading.Thread(target=lambda: answers.append(
        parking.newer_traversal_may_wait('r1', 't1', 's1')))
    thread.start()
    thread.join()
    assert answers == [True]


def test_the_hold_key_functional_tests_look_for():
    from tests.functional import test_watch_interactive
    assert test_watch_interactive.HOLD_KEY == resource_data.HOLD_KEY


# -- forward work while the root rolls back -------------------------------

_T = datetime.datetime(2026, 1, 1, 12, 0, 0)


def _at(seconds):
    return _T + datetime.timedelta(seconds=seconds)


class _Row:
    def __init__(self, owner_id=None, updated_at=None, created_at=_at(-60)):
        self.owner_id = owner_id
        self.updated_at = updated_at
        self.created_at = created_at


@pytest.fixture
def tree(monkeypatch):
    """root (its rollback began at 0 s) > group > member; set the times."""
    from heat.objects import stack as stack_objects
    rows = {'root': _Row(updated_at=_at(0)), 'group': _Row('root')}
    monkeypatch.setattr(stack_objects.Stack, 'get_by_id',
                        lambda context, stack_id, **kw: rows.get(stack_id))
    monkeypatch.setattr(parking.facts, 'place',
                        lambda stack: mock.Mock(root_id='root'))
    return rows


def _member(began):
    return mock.Mock(owner_id='group', action='UPDATE', updated_time=began,
                     created_time=_at(-60))


@pytest.mark.parametrize('group_began, member_began, forward', [
    (_at(-10), _at(-5), True),    # both began before the rollback
    (_at(-10), _at(3), True),     # the group's forward check began it late
    (_at(2), _at(3), False),      # the rollback's own, all the way down
    (None, _at(3), True),         # a group created by the forward update
])
def test_forward_work_is_told_from_the_rollbacks_own(
        tree, group_began, member_began, forward):
    tree['group'].updated_at = group_began
    assert parking._began_before_rollback(_member(member_began)) is forward


def test_a_stack_the_rollback_itself_created_is_its_own(tree):
    tree['group'].updated_at = _at(2)
    member = _member(None)
    member.created_time = _at(3)
    assert parking._began_before_rollback(member) is False
