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

Two writers of the same operation stand for two heat-engines: what one
writes, the other's next read must see.
"""

import datetime

import pytest
import sqlalchemy as sa

from heat_breakpoint.db import operation_state
from heat_breakpoint.db import pause_clock
from heat_breakpoint.db import tables
from heat_breakpoint.model import operation_state as model_state
from heat_breakpoint.model import target_kinds

KEY = ('root', 't1')


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
    state = operation_state.read(KEY)
    assert (state.mode, state.targets, state.held) == (None, {}, 0)
    assert state.paused() == 0.0


def test_one_query_reads_mode_targets_and_clock(db):
    operation_state.mark(KEY, target_kinds.RUN_TO)
    operation_state.add_targets(KEY, ['a', 'b/c'], target_kinds.STEP)
    operation_state.add_targets(KEY, ['a'], target_kinds.CLEAR)
    pause_clock.hold_started(KEY)
    queries = count_reads(db)
    state = operation_state.read(KEY)
    assert len(queries) == 1
    assert state.mode == target_kinds.RUN_TO
    # A cleared target remembers what it was.
    assert state.targets == {'a': 'clear:step', 'b/c': target_kinds.STEP}
    assert target_kinds.split_kind('clear:step') == (target_kinds.CLEAR,
                                                     'before')
    assert target_kinds.cleared_origin('clear:step') == target_kinds.STEP
    assert state.held == 1
    assert isinstance(state.since, datetime.datetime)
    assert state.paused() >= 0.0


def test_continue_and_run_to_end_what_was_said_before(db):
    operation_state.add_targets(KEY, ['a'], target_kinds.SET)
    operation_state.add_targets(KEY, ['b'], target_kinds.CLEAR)
    operation_state.mark(KEY, target_kinds.CONTINUE)
    assert operation_state.read(KEY).targets == {}
    operation_state.add_targets(KEY, ['c'],
                                target_kinds.kind_of(target_kinds.SET,
                                                     'after'))
    assert operation_state.read(KEY).targets == {'c': 'set@after'}
    # clear c disarms c for every when: its after-target and before it.
    operation_state.add_targets(KEY, ['c'], target_kinds.CLEAR)
    assert operation_state.read(KEY).targets == {
        'c': ('clear', 'clear:set@after')}


def test_many_targets_in_one_transaction(db):
    """A step arming 55 resources costs what arming one does."""
    operation_state.add_targets(KEY, ['p3', 'p7'], target_kinds.SET)
    queries = count_queries(db)
    paths = ['p%d' % i for i in range(55)]
    operation_state.add_targets(KEY, paths, target_kinds.STEP)
    statements = [q for q in queries
                  if not q.startswith(('BEGIN', 'COMMIT'))]
    # The stored operation's lookup, the targets found, one insert of
    # the new ones (executemany) and one update of those found.
    assert len(statements) <= 4, statements
    # A step keeps what was set where it goes (see below).
    assert operation_state.read(KEY).targets == dict(
        {path: target_kinds.STEP for path in paths},
        p3=target_kinds.SET, p7=target_kinds.SET)
    operation_state.add_targets(KEY, ['p3', 'p60'], target_kinds.CLEAR)
    targets = operation_state.read(KEY).targets
    assert (targets['p3'], targets['p60'], targets['p4']) == (
        'clear:set', 'clear', target_kinds.STEP)


def test_a_step_keeps_the_run_to_target_it_reaches(db):
    operation_state.mark(KEY, target_kinds.RUN_TO)
    operation_state.add_targets(KEY, ['c'], target_kinds.RUN_TO)
    operation_state.add_targets(KEY, ['b', 'c'], target_kinds.STEP)
    assert operation_state.read(KEY).targets == {
        'b': target_kinds.STEP, 'c': target_kinds.RUN_TO}


def test_a_path_keeps_a_target_per_when(db):
    after = target_kinds.kind_of(target_kinds.SET, 'after')
    operation_state.add_targets(KEY, ['b'], after)
    operation_state.add_targets(KEY, ['b'], target_kinds.STEP)
    targets = operation_state.read(KEY).targets
    assert targets == {'b': (after, target_kinds.STEP)}
    assert list(model_state.target_items(targets)) == [
        ('b', after), ('b', target_kinds.STEP)]
    assert operation_state.count_targets(KEY) == 2


def test_other_operations_are_not_read(db):
    operation_state.mark(('root', 't0'))
    operation_state.add_targets(('other', 't1'), ['x'], target_kinds.SET)
    state = operation_state.read(('root', 't1'))
    assert (state.mode, state.targets) == (None, {})


# -- a process that is its database's only writer (the local server) ---------

@pytest.fixture
def only_writer():
    tables.only_writer()
    operation_state._read.clear()
    yield
    tables.only_writer(False)
    operation_state._read.clear()


def state_reads(reads):
    return [sql for sql in reads if 'UNION ALL' in sql]


def test_the_only_writer_reads_again_after_each_write_of_its_own(
        db, only_writer):
    reads = count_reads(db)
    first = operation_state.read(KEY)
    assert operation_state.read(KEY) is first
    assert len(state_reads(reads)) == 1
    for write, seen in (
            (lambda: operation_state.mark(KEY), 'mode'),
            (lambda: operation_state.add_targets(KEY, ['a'],
                                                 target_kinds.STEP),
             'targets'),
            (lambda: pause_clock.hold_started(KEY), 'held')):
        before = operation_state.read(KEY)
        write()
        after = operation_state.read(KEY)
        assert getattr(after, seen) != getattr(before, seen), seen
    assert len(state_reads(reads)) == 4
    assert operation_state.read(KEY) is after
    assert len(state_reads(reads)) == 4


def test_a_write_that_fails_still_moves_the_count(db, only_writer):
    count = tables.writes()
    with pytest.raises(RuntimeError):
        with tables.begin():
            raise RuntimeError('rolled back')
    assert tables.writes() != count


def test_every_process_of_a_deployment_reads_every_time(db):
    assert tables.writes() is None
    reads = count_reads(db)
    operation_state.read(KEY)
    # another engine
    with db.begin() as conn:
        conn.execute(tables.operations.insert().values(
            root_stack_id=KEY[0], traversal=KEY[1],
            mode=target_kinds.CONTINUE,
            created_at=datetime.datetime(2026, 1, 1)))
    assert operation_state.read(KEY).mode == target_kinds.CONTINUE
    assert len(state_reads(reads)) == 2


def test_a_read_in_the_callers_transaction_is_not_kept(db, only_writer):
    with db.connect() as conn:
        operation_state.read(KEY, conn)
    assert operation_state._read == {}
