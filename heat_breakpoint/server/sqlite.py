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
"""Make SQLite hold up under a real heat-engine's concurrent writers.

oslo.db opens SQLite transactions with a deferred ``BEGIN``; two threads
that both read and then write deadlock on the upgrade, and SQLite answers
one of them ``database is locked`` at once, whatever the busy timeout.
``BEGIN IMMEDIATE`` takes the write lock up front, so a second writer
waits (up to ``busy_timeout``) instead of failing; WAL lets readers go on
meanwhile. Applied to one engine, never process-wide.
"""

import sqlalchemy

BUSY_TIMEOUT_MS = 60000
OSLO_DB_ENGINES = 'oslo_db.sqlalchemy.engines'


def harden(engine: sqlalchemy.engine.Engine) -> None:
    """WAL; a busy timeout and immediate transactions on every connection."""
    if engine.dialect.name != 'sqlite':
        return
    # WAL is a property of the database file: set once, it stays. (Asking
    # for it on every connection, as oslo.db's NullPool makes one per
    # transaction, cost a third of a millisecond each time.)
    raw = engine.raw_connection()
    try:
        raw.driver_connection.execute('PRAGMA journal_mode=WAL')
    finally:
        raw.close()

    @sqlalchemy.event.listens_for(engine, 'connect')
    def _pragmas(dbapi_con, con_record):
        dbapi_con.execute('PRAGMA busy_timeout=%d' % BUSY_TIMEOUT_MS)

    # oslo.db's own 'begin' listener emits a plain (deferred) BEGIN:
    # replace it, keeping its bookkeeping of conn.info['in_transaction'].
    for listener in list(engine.dispatch.begin):
        if getattr(listener, '__module__', '') == OSLO_DB_ENGINES:
            sqlalchemy.event.remove(engine, 'begin', listener)

    @sqlalchemy.event.listens_for(engine, 'begin')
    def _begin_immediate(conn):
        if 'in_transaction' not in conn.info:
            conn.exec_driver_sql('BEGIN IMMEDIATE')
            conn.info['in_transaction'] = True
