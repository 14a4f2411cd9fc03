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

oslo.db also gives a file database no pool (``NullPool``): every
transaction opened a new connection, which reads the schema again, about
0.7 ms, and a convergence check runs dozens of transactions. The local
server keeps its connections open instead (one per concurrent user), and
commits as WAL is usually run: written, not flushed to disk each time.
"""

import sqlalchemy
from sqlalchemy import pool

BUSY_TIMEOUT_MS = 60000
# Connections kept open: Heat's RPC threads (64) and the API's. More at
# once are opened and closed as before.
POOL_SIZE = 80
OSLO_DB_ENGINES = 'oslo_db.sqlalchemy.engines'


def harden(engine: sqlalchemy.engine.Engine) -> None:
    """WAL; a busy timeout and immediate transactions on every connection.

    And connections that stay open between transactions.
    """
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
        # WAL's usual setting: a commit is written, not flushed to disk
        # each time; it survives the server being killed, not the machine
        # losing power (a local server's trade).
        dbapi_con.execute('PRAGMA synchronous=NORMAL')

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

    # A kept connection keeps its info: a transaction's marker must not
    # outlive the transaction (the pool rolls back whatever is left).
    @sqlalchemy.event.listens_for(engine, 'checkin')
    def _forget_transaction(dbapi_con, con_record):
        con_record.info.pop('in_transaction', None)

    # Last: the pool takes the listeners above with it.
    _keep_connections(engine)


def _keep_connections(engine: sqlalchemy.engine.Engine) -> None:
    """Replace oslo.db's ``NullPool`` by a pool of open connections.

    The listeners registered so far (oslo.db's, the dialect's) go with
    it. SQLAlchemy opens file databases with ``check_same_thread=False``,
    so a connection may serve one thread, then another.
    """
    old = engine.pool
    if not isinstance(old, pool.NullPool):
        return
    engine.pool = pool.QueuePool(
        old._creator, pool_size=POOL_SIZE, max_overflow=-1,
        recycle=old._recycle, echo=old.echo,
        logging_name=old._orig_logging_name,
        reset_on_return=old._reset_on_return, pre_ping=old._pre_ping,
        _dispatch=old.dispatch, dialect=old._dialect)
    old.dispose()
