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
"""A plain connection pool for the one read every check makes.

Every convergence check of a stack with breakpoints reads the running
operation's state (:func:`heat_breakpoint.db.operation_state.read`): one
indexed query. Through Heat's own engine that query cost about 30 times
what the query itself does: oslo.db pings each connection it hands out (a
round trip) and, on the local server's SQLite, every transaction begins
``IMMEDIATE`` (the database's write lock, for a read). Measured in one
process: 880 us per read through Heat's engine, 38 us through this one.

So reads go through a second, plain SQLAlchemy engine on the same
database URL: a small pool, no ping; on SQLite, reads that end with the
connection's return to the pool, on MySQL reads in autocommit (so a
snapshot never outlives one read, and no ROLLBACK crosses the network
when the connection goes back). Nothing is cached but the compiled SQL:
each check still reads the rows as they are now, so what any engine
wrote before the check began is seen, exactly as before. Writes stay on
Heat's engine.

Past the pool the read is the driver's own: the statement is compiled
once per query and engine (and where its parameters go, worked out
once), and rows come back as named tuples of the driver's values (no
SQLAlchemy result processing; on SQLite a datetime is its text). Per
read that is 60 us less than SQLAlchemy's execute. The driver's
connections, made by that engine (its connect settings), are then kept
in a list of this module's (:class:`_Connections`): taking one from
SQLAlchemy's pool and giving it back cost a check, whose caches Heat's
load of the stack has just emptied, about 40 us of its read. The rows
come through the driver's own cursor (on MySQL, PyMySQL's): reading them
past it saved about 200 us of a read on MariaDB, which the per-check
target (a ratio of 1.010 there) does not need.
"""

import collections
import threading
import time

import sqlalchemy as sa

BUSY_TIMEOUT_MS = 60000
POOL_SIZE = 4
MAX_OVERFLOW = 28
RECYCLE_SECONDS = 3600

#: How long a caller waits for a connection when all are in use.
WAIT_SECONDS = 30

_readers = {}


def engine(heat_engine):
    """The read engine beside ``heat_engine`` (made once per engine)."""
    return _reader(heat_engine)[1]


def _reader(heat_engine):
    reader = _readers.get(id(heat_engine))
    if reader is None or reader[0] is not heat_engine:
        made = _make(heat_engine)
        reader = (heat_engine, made,
                  _Connections(made) if made is not heat_engine else None)
        _readers[id(heat_engine)] = reader
    return reader


class _Connections(object):
    """The read engine's driver connections, as few steps as a list.

    At most :data:`POOL_SIZE` kept, at most ``POOL_SIZE + MAX_OVERFLOW``
    in use at once (a caller waits :data:`WAIT_SECONDS` for one, as in
    SQLAlchemy's pool), each for at most :data:`RECYCLE_SECONDS`; on
    SQLite each read ends with a rollback on its way back, as the pool's
    own reset did.
    """

    def __init__(self, reader):
        self._reader = reader
        self._idle = []  # (driver connection, made at)
        self._rollback = reader.url.get_backend_name() == 'sqlite'
        self._lock = threading.Lock()
        self._freed = threading.Condition(self._lock)
        self._in_use = 0
        self._waiting = 0

    def take(self):
        """``(driver connection, made at)``: a kept one, or a new one."""
        with self._lock:
            if self._in_use >= POOL_SIZE + MAX_OVERFLOW:
                self._wait()
            self._in_use += 1
            found = self._idle.pop() if self._idle else None
        try:
            while found is not None and \
                    time.monotonic() - found[1] >= RECYCLE_SECONDS:
                _close(found[0])
                with self._lock:
                    found = self._idle.pop() if self._idle else None
            return found if found is not None else self._new()
        except BaseException:
            self._done()
            raise

    def _wait(self) -> None:
        deadline = time.monotonic() + WAIT_SECONDS
        self._waiting += 1
        try:
            while self._in_use >= POOL_SIZE + MAX_OVERFLOW:
                left = deadline - time.monotonic()
                if left <= 0 or not self._freed.wait(left):
                    raise sa.exc.TimeoutError(
                        'no connection to read with in %d s' % WAIT_SECONDS)
        finally:
            self._waiting -= 1

    def _done(self, kept=None) -> None:
        with self._lock:
            self._in_use -= 1
            if kept is not None and len(self._idle) < POOL_SIZE:
                self._idle.append(kept)
                kept = None
            if self._waiting:
                self._freed.notify()
        if kept is not None:
            _close(kept[0])

    def give_back(self, found) -> None:
        try:
            if self._rollback:
                found[0].rollback()
        except Exception:
            _close(found[0])
            self._done()
        else:
            self._done(found)

    def lost(self, found) -> None:
        """``found`` failed as the server went away: so did the kept ones."""
        _close(found[0])
        with self._lock:
            gone, self._idle = self._idle, []
        for kept in gone:
            _close(kept[0])
        self._done()

    def _new(self):
        # Made by the read engine, with its settings (autocommit on MySQL,
        # SQLite's busy timeout), then no longer its pool's.
        fairy = self._reader.raw_connection()
        fairy.detach()
        return fairy.dbapi_connection, time.monotonic()


def _close(driver) -> None:
    try:
        driver.close()
    except Exception:  # gone already
        pass


def _make(heat_engine):
    url = heat_engine.url
    if url.get_backend_name() == 'sqlite' and url.database in (
            None, '', ':memory:'):
        return heat_engine  # a private in-memory database: share it
    options = {}
    if url.get_backend_name() != 'sqlite':
        # A read is one statement: in autocommit it is a transaction of its
        # own (no snapshot outlives it), so the connection needs no
        # ROLLBACK on its way back to the pool: one round trip to the
        # server less per read (on MariaDB, 12 % of the plugin's CPU in a
        # check).
        options = {'isolation_level': 'AUTOCOMMIT',
                   'pool_reset_on_return': None}
    reader = sa.create_engine(url, pool_size=POOL_SIZE,
                              max_overflow=MAX_OVERFLOW,
                              pool_recycle=RECYCLE_SECONDS, **options)
    if url.get_backend_name() == 'sqlite':
        @sa.event.listens_for(reader, 'connect')
        def _busy_timeout(dbapi_con, con_record):
            dbapi_con.execute('PRAGMA busy_timeout=%d' % BUSY_TIMEOUT_MS)
    return reader


def read(heat_engine, query, params):
    """All rows of ``query``; once more on a connection lost meanwhile.

    ``query``: a module-level constant (compiled once). Errors are
    SQLAlchemy's ``DBAPIError``, as an execute through an engine raises.
    """
    _heat, reader, connections = _reader(heat_engine)
    sql, binder = _compiled(reader, query)
    args = binder(params)
    dbapi_error = reader.dialect.loaded_dbapi.Error
    for attempt in (0, 1):
        if connections is None:  # Heat's own engine: its pool
            pooled = reader.raw_connection()
            driver = pooled.dbapi_connection
        else:
            found = connections.take()
            driver = found[0]
        cursor = None
        lost = False
        try:
            cursor = driver.cursor()
            cursor.execute(sql, args)
            row = _row_class(sql, cursor.description)
            return [row._make(found) for found in cursor.fetchall()]
        except dbapi_error as exc:
            # Without a ping, a connection the server dropped (restart,
            # idle timeout) fails once: drop it and read again.
            lost = reader.dialect.is_disconnect(exc, driver, cursor)
            if lost and connections is None:
                pooled.invalidate(exc)
            elif lost:
                # The other kept connections date from before the server
                # went away too (a restart drops them all): read again on
                # a new one, as SQLAlchemy's own engine does on a
                # disconnect.
                cursor = _closed(cursor)
                connections.lost(found)
                reader.dispose()
            if attempt or not lost:
                raise sa.exc.DBAPIError.instance(
                    sql, args, exc, dbapi_error,
                    connection_invalidated=lost, dialect=reader.dialect)
        finally:
            _closed(cursor)
            if connections is None:
                pooled.close()
            elif not lost:
                connections.give_back(found)


def _closed(cursor) -> None:
    if cursor is not None:
        try:
            cursor.close()
        except Exception:  # its connection is gone
            pass


_statements = {}
_rows = {}


def _compiled(reader, query):
    """What a read of ``query`` on ``reader`` needs, worked out once.

    ``(sql, how to bind its parameters)``.
    """
    key = (id(reader), id(query))
    found = _statements.get(key)
    if found is None or found[0] is not query:
        compiled = query.compile(dialect=reader.dialect)
        found = (query, (str(compiled), _binder(compiled)))
        _statements[key] = found
    return found[1]


def _binder(compiled):
    """How the parameters of a read become the driver's arguments.

    SQLAlchemy's ``construct_params`` merges what is given with the
    statement's own values (a ``literal``) on every call; for a statement
    whose values need no conversion on their way to the driver (our
    queries bind strings), where each comes from is worked out once.
    """
    def slow(params):
        values = compiled.construct_params(params)
        if compiled.positional:
            return tuple(values[name] for name in compiled.positiontup)
        return values
    if getattr(compiled, '_bind_processors', True):
        return slow  # a value to convert (or SQLAlchemy changed): as it is
    names = compiled.positiontup if compiled.positional else \
        list(compiled.binds)
    sources = []
    for name in names:
        bind = compiled.binds[name]
        if bind.callable is not None:
            return slow
        given = bind.required or bind.value is None
        sources.append((name, bind.key, given, bind.value))

    if compiled.positional:
        def fast(params):
            return tuple([params[key] if given else value
                          for _name, key, given, value in sources])
    else:
        def fast(params):
            return {name: params[key] if given else value
                    for name, key, given, value in sources}
    return fast


def _row_class(sql, description):
    found = _rows.get(sql)
    if found is None:
        found = collections.namedtuple(
            'Row', tuple(column[0] for column in description))
        _rows[sql] = found
    return found
