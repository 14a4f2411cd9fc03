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
"""The sweep deletes stale rows only: a running operation keeps its own.

(The purge at the end of an operation runs on the real local Heat in
``tests/functional/test_purge.py``; here the sweep's choice of rows, on
Heat's column names, for every way a row goes stale.)
"""

import pytest
import sqlalchemy as sa

from heat_breakpoint.db import migration
from heat_breakpoint.db import purge
from heat_breakpoint.db import resource_data
from heat_breakpoint.db import tables

# root id: (status, current traversal, deleted) of its stack row, or None.
STACKS = {
    'running': ('IN_PROGRESS', 't2', False),
    'done': ('COMPLETE', 't1', False),
    'failed': ('FAILED', '', False),
    'deleted': ('COMPLETE', 't1', True),
    'gone': None,
}
# (root, traversal) of rows written: only ('running', 't2') is live.
KEYS = [('running', 't2'), ('running', 't1'), ('done', 't1'),
        ('failed', 't1'), ('deleted', 't1'), ('gone', 't1')]


@pytest.fixture
def engine(tmp_path):
    engine = sa.create_engine('sqlite:///%s' % (tmp_path / 'heat.sqlite'))
    migration.db_sync(engine)
    with engine.begin() as conn:
        conn.exec_driver_sql(
            'CREATE TABLE stack (id VARCHAR(36) PRIMARY KEY, status '
            'VARCHAR(255), current_traversal VARCHAR(36), deleted_at '
            'DATETIME)')
        conn.exec_driver_sql('CREATE TABLE resource (id INTEGER PRIMARY '
                             'KEY, root_stack_id VARCHAR(36))')
        conn.exec_driver_sql('CREATE TABLE resource_data (id INTEGER '
                             'PRIMARY KEY, key VARCHAR(255), value TEXT, '
                             'resource_id INTEGER)')
        for index, (root, row) in enumerate(sorted(STACKS.items())):
            if row is not None:
                conn.exec_driver_sql(
                    'INSERT INTO stack VALUES (?, ?, ?, ?)',
                    (root, row[0], row[1],
                     '2026-01-01 00:00:00' if row[2] else None))
            conn.exec_driver_sql('INSERT INTO resource VALUES (?, ?)',
                                 (index, root))
            for key in (resource_data.RELEASED_KEY, 'other'):
                conn.exec_driver_sql(
                    'INSERT INTO resource_data (key, value, resource_id) '
                    'VALUES (?, ?, ?)', (key, 't1', index))
        for root, traversal in KEYS:
            conn.execute(tables.operations.insert().values(
                root_stack_id=root, traversal=traversal, mode='continue',
                created_at=sa.func.now()))
            conn.execute(tables.targets.insert().values(
                root_stack_id=root, traversal=traversal, path_digest='d',
                path='a', kind='step'))
            conn.execute(tables.pauses.insert().values(
                root_stack_id=root, traversal=traversal, held=1,
                paused_seconds=0.0))
    return engine


def keys(engine):
    with engine.connect() as conn:
        return {t.name: sorted(tuple(r) for r in conn.execute(
            sa.select(t.c.root_stack_id, t.c.traversal)))
            for t in tables.TABLES}


def released(engine):
    with engine.connect() as conn:
        return sorted(r[0] for r in conn.exec_driver_sql(
            'SELECT r.root_stack_id FROM resource_data d JOIN resource r '
            'ON r.id = d.resource_id WHERE d.key = ?',
            (resource_data.RELEASED_KEY,)))


def test_only_the_running_traversal_keeps_its_rows(engine):
    counts = purge.purge_stale(engine)
    assert keys(engine) == {t.name: [('running', 't2')]
                            for t in tables.TABLES}
    assert counts['breakpoint_operation'] == len(KEYS) - 1
    # Markers: only where the root stack still runs.
    assert released(engine) == ['running']
    assert purge.count_rows(engine) == dict(
        {'resource_data.' + key: 0 for key in resource_data.DATA_KEYS},
        breakpoint_operation=1, breakpoint_hold_target=1,
        breakpoint_pause=1,
        **{'resource_data.' + resource_data.RELEASED_KEY: 1})
    # Nothing else of Heat's is touched.
    with engine.connect() as conn:
        assert conn.exec_driver_sql(
            "SELECT count(*) FROM resource_data WHERE key = 'other'"
        ).scalar() == len(STACKS)


def test_the_sweep_is_bounded(engine):
    purge.purge_stale(engine, limit=2)
    left = keys(engine)['breakpoint_operation']
    assert len(left) == len(KEYS) - 2
    assert ('running', 't2') in left
    while any(purge.purge_stale(engine, limit=2).values()):
        pass
    assert keys(engine)['breakpoint_operation'] == [('running', 't2')]


def test_orphans_of_every_key_of_ours_go_and_only_those(engine):
    with engine.begin() as conn:
        for key in resource_data.DATA_KEYS + ('other',):
            conn.exec_driver_sql(
                'INSERT INTO resource_data (key, value, resource_id) '
                'VALUES (?, ?, ?)', (key, 't1', 424242))
    counts = purge.purge_stale(engine)
    for key in resource_data.DATA_KEYS:
        assert counts['resource_data.' + key] >= 1, key
    with engine.connect() as conn:
        left = sorted(r[0] for r in conn.exec_driver_sql(
            'SELECT key FROM resource_data WHERE resource_id = 424242'))
    assert left == ['other']


def test_the_manage_command_knows_every_key_the_engine_writes():
    # One list, which the engine's modules and the purge both read.
    from heat_breakpoint.engine.check import hold_records
    from heat_breakpoint.engine.check import outcomes
    from heat_breakpoint.engine.check import planned_changes
    from heat_breakpoint.engine.commands import lost_releases
    for module in (hold_records, lost_releases, outcomes, planned_changes,
                   purge):
        assert module.resource_data is resource_data
    assert set(resource_data.NOTE_KEYS) < set(resource_data.DATA_KEYS)


def test_a_deadlock_with_another_engines_purge_starts_over(
        engine, monkeypatch):
    # Seen on MariaDB in the chaos run: two engines deleting one stack's
    # rows at once, InnoDB picks a loser (1213). The loser starts over.
    from oslo_db import exception as db_exception
    real = purge._delete_root
    failures = [db_exception.DBDeadlock()]

    def deadlock_once(*args, **kwargs):
        if failures:
            raise failures.pop()
        return real(*args, **kwargs)
    monkeypatch.setattr(purge, '_delete_root', deadlock_once)
    monkeypatch.setattr(tables, 'engine', lambda: engine)
    purge._purge_replaced('running', 't2')
    assert failures == []
    assert ('running', 't1') not in keys(engine)['breakpoint_operation']
    assert ('running', 't2') in keys(engine)['breakpoint_operation']
