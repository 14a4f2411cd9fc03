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
"""Tests of the operation tables, on an in-memory SQLite database.

Two stack objects of the same operation stand for two heat-engines (or
two checks): what one writes, the other's next check must see.
"""

import datetime
from unittest import mock

import pytest
import sqlalchemy as sa

from heat_breakpoint.engine import operations
from heat_breakpoint.engine import target_kinds


class FakeStack:
    """As much of a Heat stack as the module uses."""

    def __init__(self, stack_id='root', traversal='t1', owner_id=None,
                 root_id=None):
        self.id = stack_id
        self.current_traversal = traversal
        self.owner_id = owner_id
        self.context = None
        self._root_id = root_id or stack_id
        self.root_lookups = 0

    def root_stack_id(self):
        self.root_lookups += 1
        return self._root_id


@pytest.fixture
def db():
    engine = sa.create_engine('sqlite://')
    with mock.patch.object(operations.db_api, 'get_engine',
                           return_value=engine), \
            mock.patch.object(operations, '_ready_engines', set()):
        operations._engine()  # the tables, before queries are counted
        yield engine


def count_queries(engine):
    """Statements SQLAlchemy sends (the writes)."""
    seen = []
    sa.event.listen(engine, 'before_cursor_execute',
                    lambda *args: seen.append(args[2]))
    return seen


def count_reads(engine):
    """SELECTs the database runs, however sent.

    The per-check read goes to the driver directly.
    """
    seen = []
    # An in-memory database: one connection per thread, this one.
    engine.raw_connection().driver_connection.set_trace_callback(
        lambda sql: seen.append(sql) if sql.lstrip().upper().startswith(
            ('SELECT', 'WITH')) else None)
    return seen


def test_nothing_recorded(db):
    state = operations.read(FakeStack())
    assert (state.mode, state.targets, state.held) == (None, {}, 0)
    assert state.paused() == 0.0
    assert operations.plan(FakeStack()) == (None, {})
    assert operations.paused_seconds(FakeStack()) == 0.0


def test_one_query_reads_mode_targets_and_clock(db):
    writer = FakeStack()
    operations.mark(writer, operations.RUN_TO)
    operations.add_targets(writer, ['a', 'b/c'], operations.STEP)
    operations.add_targets(writer, ['a'], operations.CLEAR)
    operations.hold_started(writer)
    queries = count_reads(db)
    state = operations.read(FakeStack())
    assert len(queries) == 1
    assert state.mode == operations.RUN_TO
    # A cleared target remembers what it was.
    assert state.targets == {'a': 'clear:step', 'b/c': operations.STEP}
    assert target_kinds.split_kind('clear:step') == (operations.CLEAR,
                                                     'before')
    assert target_kinds.cleared_origin('clear:step') == operations.STEP
    assert state.held == 1
    assert isinstance(state.since, datetime.datetime)
    assert state.paused() >= 0.0


def test_continue_and_run_to_end_what_was_said_before(db):
    writer = FakeStack()
    operations.add_targets(writer, ['a'], operations.SET)
    operations.add_targets(writer, ['b'], operations.CLEAR)
    operations.mark(writer, operations.CONTINUE)
    assert operations.read(FakeStack()).targets == {}
    operations.add_targets(writer, ['c'],
                           target_kinds.kind_of(operations.SET, 'after'))
    assert operations.read(FakeStack()).targets == {'c': 'set@after'}
    # clear c disarms c for every when: its after-target and before it.
    operations.add_targets(writer, ['c'], operations.CLEAR)
    assert operations.read(FakeStack()).targets == {
        'c': ('clear', 'clear:set@after')}


def test_many_targets_in_one_transaction(db):
    """A step arming 55 resources costs what arming one does."""
    writer = FakeStack()
    operations.add_targets(writer, ['p3', 'p7'], operations.SET)
    queries = count_queries(db)
    paths = ['p%d' % i for i in range(55)]
    operations.add_targets(writer, paths, operations.STEP)
    statements = [q for q in queries
                  if not q.startswith(('BEGIN', 'COMMIT'))]
    # The stored operation's lookup, the targets found, one insert of
    # the new ones (executemany) and one update of those found.
    assert len(statements) <= 4, statements
    # A step keeps what was set where it goes (see below).
    assert operations.read(FakeStack()).targets == dict(
        {path: operations.STEP for path in paths},
        p3=operations.SET, p7=operations.SET)
    operations.add_targets(writer, ['p3', 'p60'], operations.CLEAR)
    targets = operations.read(FakeStack()).targets
    assert (targets['p3'], targets['p60'], targets['p4']) == (
        'clear:set', 'clear', operations.STEP)


def test_a_step_keeps_the_run_to_target_it_reaches(db):
    writer = FakeStack()
    operations.mark(writer, operations.RUN_TO)
    operations.add_targets(writer, ['c'], operations.RUN_TO)
    operations.add_targets(writer, ['b', 'c'], operations.STEP)
    assert operations.read(FakeStack()).targets == {
        'b': operations.STEP, 'c': operations.RUN_TO}


def test_a_path_keeps_a_target_per_when(db):
    writer = FakeStack()
    after = target_kinds.kind_of(operations.SET, 'after')
    operations.add_targets(writer, ['b'], after)
    operations.add_targets(writer, ['b'], operations.STEP)
    targets = operations.read(FakeStack()).targets
    assert targets == {'b': (after, operations.STEP)}
    assert list(operations.target_items(targets)) == [
        ('b', after), ('b', operations.STEP)]
    assert operations.count_targets(writer) == 2


def test_other_operations_are_not_read(db):
    operations.mark(FakeStack('root', 't0'))
    operations.add_targets(FakeStack('other', 't1'), ['x'], operations.SET)
    assert operations.plan(FakeStack('root', 't1')) == (None, {})


def test_current_reads_once_per_stack_object(db):
    stack = FakeStack()
    queries = count_reads(db)
    first = operations.current(stack)
    assert operations.current(stack) is first
    assert len(queries) == 1


def test_another_engine_is_seen_by_the_next_check(db):
    check = FakeStack()
    assert operations.current(check).mode is None
    operations.mark(FakeStack())  # another engine, its own stack object
    # The next check loads the stack afresh: it sees the mark.
    assert operations.current(FakeStack()).mode == operations.CONTINUE
    assert operations.plan(check)[0] == operations.CONTINUE


def test_a_kept_state_goes_stale(db):
    stack = FakeStack()
    operations.current(stack)
    operations.mark(FakeStack())
    with mock.patch.object(operations, 'FRESH_SECONDS', 0.0):
        assert operations.current(stack).mode == operations.CONTINUE


@pytest.mark.parametrize('write', [
    lambda stack: operations.mark(stack),
    lambda stack: operations.add_targets(stack, ['a'], operations.SET),
    operations.hold_started,
    operations.hold_ended,
])
def test_writing_through_a_stack_drops_what_it_kept(db, write):
    stack = FakeStack()
    operations.hold_started(FakeStack())
    kept = operations.current(stack)
    write(stack)
    assert operations.current(stack) is not kept


def test_pause_clock(db):
    stack = FakeStack()
    operations.hold_started(stack)
    operations.hold_started(stack)
    operations.hold_ended(stack)
    assert operations.read(stack).held == 1
    operations.hold_ended(stack)
    state = operations.read(stack)
    assert state.held == 0 and state.since is None
    assert state.paused() == state.paused_seconds > 0.0


def test_nested_stack_is_keyed_by_the_root_operation(db):
    root = FakeStack('root', 'root-t')
    nested = FakeStack('child', 'child-t', owner_id='root', root_id='root')
    with mock.patch.object(operations.stack_objects.Stack, 'get_by_id',
                           return_value=root) as get:
        operations.add_targets(nested, ['inner/x'], operations.SET)
        assert operations.root_operation(nested) == ('root', 'root-t')
        assert get.call_count == 1  # once per stack object
    assert operations.plan(root) == (None, {'inner/x': operations.SET})


def test_a_remembered_root_saves_the_walk(db):
    nested = FakeStack('child', 'child-t', owner_id='mid', root_id='root')
    operations.remember_root(nested, 'root', 'root-t')
    with mock.patch.object(operations.stack_objects.Stack,
                           'get_by_id') as get:
        assert operations.root_operation(nested) == ('root', 'root-t')
    get.assert_not_called()
    assert nested.root_lookups == 0
    # A new traversal of the nested stack may belong to a new operation.
    nested.current_traversal = 'child-t2'
    with mock.patch.object(operations.stack_objects.Stack, 'get_by_id',
                           return_value=FakeStack('root', 'root-t2')):
        assert operations.root_operation(nested) == ('root', 'root-t2')
