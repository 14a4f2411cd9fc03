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
"""The local server's SQLite engine, as oslo.db makes it for Heat."""

import sqlite3
import threading

from oslo_db.sqlalchemy import engines
import pytest
import sqlalchemy as sa

from heat_breakpoint.server import sqlite


@pytest.fixture
def database(tmp_path):
    path = str(tmp_path / 'heat.sqlite')
    engine = engines.create_engine('sqlite:///%s' % path)
    opened = []
    sa.event.listen(engine, 'connect', lambda con, rec: opened.append(con))
    with engine.begin() as conn:
        conn.exec_driver_sql('CREATE TABLE t (v INTEGER)')
    sqlite.harden(engine)
    opened.clear()
    yield engine, path, opened
    engine.dispose()


def _locked(path):
    """Whether another process-like connection can take the write lock."""
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    try:
        other.execute('BEGIN IMMEDIATE')
    except sqlite3.OperationalError as exc:
        assert 'locked' in str(exc)
        return True
    finally:
        other.close()
    return False


def test_transactions_reuse_one_open_connection(database):
    engine, path, opened = database
    for value in range(20):
        with engine.begin() as conn:
            conn.execute(sa.text('INSERT INTO t VALUES (:v)'), {'v': value})
    assert len(opened) == 1
    with engine.connect() as conn:
        assert conn.exec_driver_sql('SELECT COUNT(*) FROM t').scalar() == 20
        assert conn.exec_driver_sql(
            'PRAGMA busy_timeout').scalar() == sqlite.BUSY_TIMEOUT_MS
        assert conn.exec_driver_sql(
            'PRAGMA journal_mode').scalar() == 'wal'
        assert conn.exec_driver_sql(
            'PRAGMA synchronous').scalar() == 1  # NORMAL


def test_every_transaction_takes_the_write_lock_at_begin(database):
    engine, path, opened = database
    for attempt in range(3):
        with pytest.raises(ZeroDivisionError):
            with engine.begin() as conn:
                # A read alone: the lock is taken up front all the same.
                conn.exec_driver_sql('SELECT COUNT(*) FROM t').scalar()
                assert _locked(path)
                1 / 0
        # Rolled back on the error, the kept connection lets go, and its
        # next transaction begins IMMEDIATE again (no marker left over).
        assert not _locked(path)
    assert len(opened) == 1


def test_a_kept_connection_serves_another_thread(database):
    engine, path, opened = database
    errors = []

    def insert(value):
        try:
            with engine.begin() as conn:
                conn.execute(sa.text('INSERT INTO t VALUES (:v)'),
                             {'v': value})
        except Exception as exc:  # reported below
            errors.append(exc)

    for value in range(5):
        thread = threading.Thread(target=insert, args=(value,))
        thread.start()
        thread.join()
    assert errors == []
    assert len(opened) == 1
    with engine.connect() as conn:
        assert conn.exec_driver_sql('SELECT COUNT(*) FROM t').scalar() == 5


def test_concurrent_writers_wait_for_each_other(database):
    engine, path, opened = database
    errors = []

    def insert(first):
        try:
            for value in range(first, first + 50):
                with engine.begin() as conn:
                    count = conn.exec_driver_sql(
                        'SELECT COUNT(*) FROM t').scalar()
                    conn.execute(sa.text('INSERT INTO t VALUES (:v)'),
                                 {'v': count})
        except Exception as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=insert, args=(i * 50,))
               for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with engine.connect() as conn:
        # Each read-then-write saw every write before it: no lost update.
        values = [v for (v,) in conn.exec_driver_sql('SELECT v FROM t')]
    assert sorted(values) == list(range(200))
    assert len(opened) <= 4
