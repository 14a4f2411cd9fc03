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
"""A cancel wins: what the engine reads to know an operation was cancelled.

:func:`operation_state.forward_ended` answers from the root stack's row
and our cancel mark, as they are in the database now; once it says so,
nothing holds (:func:`decision.rules`) and a continue does not undo it.
"""

from unittest import mock

import pytest

from heat_breakpoint.db import operation_state
from heat_breakpoint.engine.check import decision
from heat_breakpoint.engine.commands import signals
from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import operation_state as model_state
from heat_breakpoint.model import protocol
from heat_breakpoint.model import target_kinds

ROOT = ('s1', 't1')
CANCELLED = operation_state.CANCELLED
SUPERSEDED = operation_state.SUPERSEDED


@pytest.fixture
def stack_row(db):
    with db.begin() as conn:
        conn.exec_driver_sql(
            'CREATE TABLE stack (id VARCHAR(36) PRIMARY KEY, action '
            'VARCHAR(255), status VARCHAR(255), status_reason TEXT, '
            'current_traversal VARCHAR(36))')
        conn.exec_driver_sql(
            "INSERT INTO stack VALUES ('s1', 'UPDATE', 'IN_PROGRESS', "
            "'Stack UPDATE started', 't1')")
    yield db


def _set(engine, **values):
    with engine.begin() as conn:
        for column, value in values.items():
            conn.exec_driver_sql(
                'UPDATE stack SET %s = ? WHERE id = ?' % column,
                (value, 's1'))


def test_a_forward_operation_goes_on(stack_row):
    assert operation_state.forward_ended('s1', 't1') is None


def test_a_cancel_mark_ends_it_before_heat_changed_anything(stack_row):
    operation_state.cancel_asked(ROOT)
    assert operation_state.forward_ended('s1', 't1') == CANCELLED
    # Another operation of the same stack is not cancelled by it.
    assert operation_state.forward_ended('s1', 't0') == SUPERSEDED


@pytest.mark.parametrize('values', [
    {'action': 'ROLLBACK', 'current_traversal': 't2'},
    {'status': 'FAILED', 'status_reason': 'Stack UPDATE cancelled',
     'current_traversal': 't2'},
])
def test_a_rollback_or_heats_own_cancel_ends_it(stack_row, values):
    _set(stack_row, **values)
    assert operation_state.forward_ended('s1', 't1') == CANCELLED


def test_a_newer_update_supersedes_it(stack_row):
    _set(stack_row, current_traversal='t2')
    assert operation_state.forward_ended('s1', 't1') == SUPERSEDED


def test_a_failure_is_no_newer_operation(stack_row):
    # Heat's purge_db empties a failed stack's traversal.
    _set(stack_row, status='FAILED',
         status_reason='Resource CREATE failed: boom', current_traversal='')
    assert operation_state.forward_ended('s1', 't1') == \
        operation_state.FAILED
    assert operation_state.failed_or_superseded('') == \
        operation_state.FAILED
    assert operation_state.failed_or_superseded('t2') == SUPERSEDED
    assert operation_state.failed_or_superseded(None) == SUPERSEDED


def test_a_stack_gone_ends_it(stack_row):
    assert operation_state.forward_ended('gone', 't1') == SUPERSEDED


def test_a_continue_after_the_cancel_does_not_undo_it(stack_row):
    operation_state.cancel_asked(ROOT)
    operation_state.mark(ROOT, target_kinds.CONTINUE)
    assert operation_state.read(ROOT).mode == target_kinds.CANCEL
    assert operation_state.forward_ended('s1', 't1') == CANCELLED


def test_nothing_holds_once_cancelled():
    env = [breakpoints.parse_name('a')]
    state = model_state.State(mode=target_kinds.CANCEL,
                              targets={'b': target_kinds.STEP})
    found = decision.rules(env, state)
    assert [(r.name, r.armed, r.why) for r in found] == [
        ('b', False, 'cancel'), ('a', False, 'cancel')]
    assert decision.decide(found, ('a',), 'create') is None
    assert decision.decide(found, ('b',), 'create') is None


@pytest.mark.parametrize('details, kind', [
    ({protocol.COMMAND_KEY: 'set'}, signals.COMMAND),
    ({'unset_hook': 'pre-create', protocol.SIGNAL_KEY: 'step'},
     signals.RELEASE),
    ({'unset_hook': 'pre-create'}, None),  # stock hook clear
    ({'anything': 1}, None),
    ('a string', None),
    (None, None),
])
def test_which_signals_carry_a_command_of_ours(details, kind):
    assert signals.carried(details) == kind


def test_continue_with_a_depth_disarms_the_top_levels_only():
    env = [breakpoints.parse_name(name)
           for name in ('web', 'inner/rep', '*')]
    state = model_state.State(mode=target_kinds.continue_mode(0))
    found = decision.rules(env, state)
    # One rule per name at its own depth; '*' disarmed above, armed below.
    assert [(r.name, r.armed) for r in found] == [
        ('web', False), ('inner/rep', True), ('*', False), ('*', True)]
    assert decision.decide(found, ('web',), 'create') is None
    assert decision.decide(found, ('other',), 'create') is None
    assert decision.decide(found, ('inner', 'rep'), 'create').name == \
        'inner/rep'
    assert decision.decide(found, ('inner', 'x'), 'create').name == '*'


def test_a_narrower_continue_does_not_rearm_a_wider_one():
    assert target_kinds.wider(target_kinds.CONTINUE,
                              target_kinds.continue_mode(0)) == \
        target_kinds.CONTINUE
    assert target_kinds.wider(target_kinds.continue_mode(2),
                              target_kinds.continue_mode(1)) == \
        target_kinds.continue_mode(2)
    assert target_kinds.wider(target_kinds.continue_mode(0),
                              target_kinds.CONTINUE) == target_kinds.CONTINUE
    assert target_kinds.continue_depth('continue@3') == (True, 3)
    assert target_kinds.continue_depth('to') == (False, None)


# -- the cancel itself: signals.cancel, Heat's stack_cancel_update wrapped --

class _Stack:
    """What ``signals.cancel`` reads of the Heat stack it cancels."""

    UPDATE, CREATE, IN_PROGRESS = 'UPDATE', 'CREATE', 'IN_PROGRESS'

    def __init__(self, action='UPDATE', status='IN_PROGRESS', owner_id=None,
                 convergence=True):
        self.id, self.current_traversal = ROOT
        self.action, self.status = action, status
        self.owner_id, self.convergence = owner_id, convergence


def _cancel(stack, rollback=True, load_error=None):
    """signals.cancel on ``stack``; what Heat's own cancel found then."""
    from heat.engine import stack as parser
    seen = []

    def stock(service, cnxt, identity, cancel_with_rollback):
        # Heat's cancel starts the rollback: by then the cancel is noted.
        seen.append(operation_state.forward_ended(*ROOT))
        return 'stock result'

    service = mock.Mock()
    with mock.patch.object(parser.Stack, 'load',
                           side_effect=load_error, return_value=stack):
        assert signals.cancel(service, 'cnxt', {'stack_id': 's1'},
                              rollback, stock) == 'stock result'
    return seen


def test_a_cancel_is_noted_before_heat_starts_the_rollback(stack_row):
    assert _cancel(_Stack()) == [CANCELLED]
    assert operation_state.read(ROOT).mode == target_kinds.CANCEL


def test_a_stopped_create_is_noted_too(stack_row):
    assert _cancel(_Stack(action='CREATE'), rollback=False) == [CANCELLED]


@pytest.mark.parametrize('stack, rollback', [
    # Heat's own cancel of a nested operation (preempted by the root's
    # newer one): it must hold again where its breakpoints say.
    (_Stack(owner_id='parent'), False),
    (_Stack(status='COMPLETE'), True),  # Heat refuses it
    (_Stack(action='CREATE'), True),  # Heat refuses a create's rollback
    (_Stack(convergence=False), True),  # the legacy engine holds in-task
])
def test_what_heat_will_not_cancel_is_not_noted(stack_row, stack, rollback):
    assert _cancel(stack, rollback) == [None]
    assert operation_state.read(ROOT).mode != target_kinds.CANCEL


def test_a_note_that_fails_never_stops_heats_own_cancel(stack_row):
    assert _cancel(None, load_error=RuntimeError('db gone')) == [None]
