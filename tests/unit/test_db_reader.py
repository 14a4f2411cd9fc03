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
"""The per-check read's own pool sees every write at once, and outlives
a restart of the database server."""

import pytest
import sqlalchemy as sa

from heat_breakpoint.db import reader

TABLE = sa.table('t', sa.column('v'))


def test_a_file_database_gets_its_own_pool_that_sees_writes(tmp_path):
    heat = sa.create_engine('sqlite:///%s' % (tmp_path / 'heat.sqlite'))
    with heat.begin() as conn:
        conn.exec_driver_sql('CREATE TABLE t (v INTEGER)')
    assert reader.engine(heat) is not heat
    assert reader.engine(heat) is reader.engine(heat)
    query = sa.select(TABLE.c.v)
    assert reader.read(heat, query, {}) == []
    for value in (1, 2):
        with heat.begin() as conn:  # another writer, e.g. another engine
            conn.execute(TABLE.insert().values(v=value))
        # No cache: the very next read sees the committed row.
        assert len(reader.read(heat, query, {})) == value


def test_an_in_memory_database_is_shared():
    heat = sa.create_engine('sqlite://')
    assert reader.engine(heat) is heat


def test_rows_are_named_and_errors_are_sqlalchemys(tmp_path):
    heat = sa.create_engine('sqlite:///%s' % (tmp_path / 'heat.sqlite'))
    with heat.begin() as conn:
        conn.exec_driver_sql('CREATE TABLE t (v INTEGER)')
        conn.execute(TABLE.insert().values(v=7))
    query = sa.select(TABLE.c.v.label('value')).where(
        TABLE.c.v == sa.bindparam('wanted'))
    rows = reader.read(heat, query, {'wanted': 7})
    assert [row.value for row in rows] == [7]
    assert reader.read(heat, query, {'wanted': 8}) == []
    missing = sa.select(sa.table('nowhere', sa.column('v')).c.v)
    with pytest.raises(sa.exc.DBAPIError, match='no such table: nowhere'):
        reader.read(heat, missing, {})


def test_a_database_restart_costs_one_retry_not_an_error(tmp_path):
    heat = sa.create_engine('sqlite:///%s' % (tmp_path / 'heat.sqlite'))
    with heat.begin() as conn:
        conn.exec_driver_sql('CREATE TABLE t (v INTEGER)')
        conn.execute(TABLE.insert().values(v=7))
    pool = reader.engine(heat)
    opened = []
    sa.event.listen(pool, 'connect',
                    lambda dbapi_con, record: opened.append(dbapi_con))
    # Three reads at once left three connections in the pool.
    held = [pool.raw_connection() for _ in range(3)]
    for conn in held:
        conn.close()
    assert len(opened) == 3
    # The server restarted: every pooled connection is dead.
    for dbapi_con in opened:
        dbapi_con.close()
    query = sa.select(TABLE.c.v)
    assert [row.v for row in reader.read(heat, query, {})] == [7]
    assert len(opened) == 4  # one new connection, no error


def test_a_mysql_pool_reads_in_autocommit_and_skips_the_rollback():
    # Each read is one statement in autocommit, so returning the
    # connection sends no ROLLBACK: a round trip less per check on MariaDB.
    pytest.importorskip('pymysql')
    heat = sa.create_engine('mysql+pymysql://heat:x@127.0.0.1:1/heat')
    pool = reader.engine(heat)
    assert pool is not heat
    assert pool.dialect._on_connect_isolation_level == 'AUTOCOMMIT'
    assert pool.pool._reset_on_return is sa.pool.base.ResetStyle.reset_none
    # Heat's own engine is left as it is.
    assert heat.pool._reset_on_return is \
        sa.pool.base.ResetStyle.reset_rollback


def test_a_sqlite_pool_still_ends_each_read_with_a_rollback(tmp_path):
    heat = sa.create_engine('sqlite:///%s' % (tmp_path / 'heat.sqlite'))
    pool = reader.engine(heat)
    assert pool.pool._reset_on_return is \
        sa.pool.base.ResetStyle.reset_rollback


def test_reads_keep_their_connections_in_a_list_of_their_own(
        tmp_path, monkeypatch):
    heat = sa.create_engine('sqlite:///%s' % (tmp_path / 'heat.sqlite'))
    with heat.begin() as conn:
        conn.exec_driver_sql('CREATE TABLE t (v INTEGER)')
    query = sa.select(TABLE.c.v)
    reader.read(heat, query, {})
    kept = reader._reader(heat)[2]
    assert len(kept._idle) == 1
    first = kept._idle[0][0]
    reader.read(heat, query, {})
    assert [found[0] for found in kept._idle] == [first]
    # Kept for an hour at most: an older one is closed, a new one made.
    monkeypatch.setattr(reader, 'RECYCLE_SECONDS', 0)
    reader.read(heat, query, {})
    assert kept._idle[0][0] is not first
    with pytest.raises(Exception, match='closed'):
        first.execute('SELECT 1')


def test_reads_at_once_are_bounded_as_in_sqlalchemys_pool(
        tmp_path, monkeypatch):
    import threading
    heat = sa.create_engine('sqlite:///%s' % (tmp_path / 'heat.sqlite'))
    monkeypatch.setattr(reader, 'POOL_SIZE', 1)
    monkeypatch.setattr(reader, 'MAX_OVERFLOW', 1)
    monkeypatch.setattr(reader, 'WAIT_SECONDS', 0.2)
    kept = reader._reader(heat)[2]
    first, second = kept.take(), kept.take()
    with pytest.raises(sa.exc.TimeoutError):
        kept.take()
    # A connection given back goes to whoever waits for one.
    taken = []
    waiter = threading.Thread(target=lambda: taken.append(kept.take()))
    monkeypatch.setattr(reader, 'WAIT_SECONDS', 5)
    waiter.start()
    kept.give_back(first)
    waiter.join()
    assert taken[0][0] is first[0]
    kept.give_back(second)
    kept.give_back(taken[0])
    assert len(kept._idle) == 1  # POOL_SIZE kept, the other closed
