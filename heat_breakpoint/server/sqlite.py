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
"""Translation helpers: user-facing strings go through ``_()``."""
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


def harden(engine: sqlalchemy.engine.Engine) -> None:
    """Give every new connection of ``engine`` WAL, a busy timeout and
    immediate transactions. Only for SQLite engines."""
    if engine.dialect.name != 'sqlite':
        return

    @sqlalchemy.event.listens_for(engine, 'connect')
    def _pragmas(dbapi_con, con_record):
        dbapi_con.execute('PRAGMA journal_mode=WAL')
        dbapi_con.execute('PRAGMA busy_timeout=%d' % BUSY_TIMEOUT_MS)

    # Inserted before oslo.db's own 'begin' listener, which emits a plain
    # BEGIN unless the connection already says it is in a transaction.
    @sqlalchemy.event.listens_for(engine, 'begin', insert=True)
    def _begin_immediate(conn):
        if 'in_transaction' not in conn.info:
            conn.exec_driver_sql('BEGIN IMMEDIATE')
            conn.info['in_transaction'] = True
