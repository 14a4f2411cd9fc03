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
"""On MariaDB, the rows read past PyMySQL's cursor are the cursor's.

The operation's state (:func:`heat_breakpoint.db.operation_state.read`)
is read through :mod:`heat_breakpoint.db.driver_rows`; here the same
query goes through a PyMySQL cursor too, on the tables as created by the
plugin's schema, and both must give the same values of the same types.
An error of the server, a value that does not convert and a read cut
short leave the reads that follow as they should be.
"""

import datetime
import sys
import types
from unittest import mock

import oslo_i18n
import pymysql
import pytest
import sqlalchemy as sa

from heat_breakpoint.db import driver_rows
from heat_breakpoint.db import reader

DATABASE = 'driver_rows'
HELD = ('a' * 36, 'b' * 36)
PLAIN = ('c' * 36, 'd' * 36)
EMPTY = ('e' * 36, 'f' * 36)
SINCE = datetime.datetime(2026, 12, 2, 14, 33, 17)


@pytest.fixture(scope='module')
def storage():
    """The plugin's storage modules, imported here, not at collection.

    They import Heat, whose package turns oslo.i18n's lazy translation on
    for the whole process; the later tests of this tier run the openstack
    CLI in this process, and some of its plugins (troveclient's) cannot
    load with it on. Turned off again after this module's tests, unless
    Heat was imported before them.
    """
    heat_was_imported = 'heat' in sys.modules
    from heat_breakpoint.db import operation_state
    from heat_breakpoint.db import tables
    yield types.SimpleNamespace(operation_state=operation_state,
                                tables=tables)
    if not heat_was_imported:
        oslo_i18n.enable_lazy(False)


@pytest.fixture(scope='module')
def heat_engine(deployment, storage):
    tables = storage.tables
    deployment.mariadb.create_database(DATABASE)
    engine = sa.create_engine(deployment.mariadb.url(DATABASE))
    tables.metadata.create_all(engine)
    with engine.begin() as conn:
        conn.execute(tables.pauses.insert(), [
            dict(root_stack_id=HELD[0], traversal=HELD[1], held=2,
                 paused_seconds=12.25, since=SINCE),
            dict(root_stack_id=PLAIN[0], traversal=PLAIN[1], held=0,
                 paused_seconds=0.5, since=None)])
        conn.execute(tables.operations.insert().values(
            root_stack_id=HELD[0], traversal=HELD[1], mode='continue',
            created_at=SINCE))
        conn.execute(tables.targets.insert(), [
            dict(root_stack_id=HELD[0], traversal=HELD[1],
                 path_digest='%064d' % number, path=path, kind=kind)
            for number, (path, kind) in enumerate([
                ('web/ünïcode', 'step'), ('db', 'set'),
                ('db', 'clear:after'), ("it's \\ quoted", 'run-to')])])
    yield engine
    engine.dispose()


def _cursor_rows(heat_engine, query, params):
    """The rows as a PyMySQL cursor of SQLAlchemy's pool gives them."""
    compiled = query.compile(dialect=heat_engine.dialect)
    values = compiled.construct_params(params)
    conn = heat_engine.raw_connection()
    try:
        cursor = conn.cursor()
        assert isinstance(cursor, pymysql.cursors.Cursor)
        cursor.execute(str(compiled), tuple(
            values[name] for name in compiled.positiontup)
            if compiled.positional else values)
        return [tuple(row) for row in cursor.fetchall()]
    finally:
        conn.close()


def _typed(rows):
    return sorted(((tuple((type(v).__name__, v) for v in row))
                   for row in rows), key=repr)


@pytest.mark.parametrize('key', [HELD, PLAIN, EMPTY])
def test_the_state_reads_past_the_cursor_as_the_cursor(heat_engine, storage,
                                                       key):
    query = storage.operation_state._STATE_QUERY
    params = {'root_stack_id': key[0], 'traversal': key[1]}
    with mock.patch.object(driver_rows, 'read',
                           wraps=driver_rows.read) as past_cursor:
        rows = reader.read(heat_engine, query, params)
    assert past_cursor.call_count == 1
    expected = _cursor_rows(heat_engine, query, params)
    assert _typed(tuple(row) for row in rows) == _typed(expected)
    assert [row._fields for row in rows[:1]] in (
        [], [('path', 'kind', 'held', 'paused_seconds', 'since')])


def test_the_state_as_the_plugin_reads_it(heat_engine, storage):
    operation_state, tables = storage.operation_state, storage.tables
    with mock.patch.object(tables.db_api, 'get_engine',
                           return_value=heat_engine):
        held = operation_state.read(HELD)
        plain = operation_state.read(PLAIN)
        empty = operation_state.read(EMPTY)
    assert held.mode == 'continue'
    assert held.targets == {'web/ünïcode': 'step',
                            'db': ('clear:after', 'set'),
                            "it's \\ quoted": 'run-to'}
    assert (held.held, held.paused_seconds, held.since) == (2, 12.25, SINCE)
    assert (plain.mode, plain.targets, plain.held, plain.paused_seconds,
            plain.since) == (None, {}, 0, 0.5, None)
    assert empty == operation_state.State()


def test_a_textual_query_still_reads_through_the_cursor(heat_engine):
    with mock.patch.object(driver_rows, 'read') as past_cursor:
        rows = reader.read(heat_engine, sa.text(
            'SELECT held FROM breakpoint_pause WHERE traversal = :t'),
            {'t': HELD[1]})
    assert past_cursor.call_count == 0
    assert [tuple(row) for row in rows] == [(2,)]


def test_a_server_error_a_bad_value_and_a_cut_read_leave_reads_working(
        heat_engine, storage):
    query, tables = storage.operation_state._STATE_QUERY, storage.tables
    params = {'root_stack_id': HELD[0], 'traversal': HELD[1]}
    missing = sa.select(sa.table('nowhere', sa.column(
        'v', sa.Integer)).c.v)
    with pytest.raises(sa.exc.DBAPIError, match="nowhere' doesn't exist"):
        reader.read(heat_engine, missing, {})
    # A text column read as an integer: the value does not convert (after
    # the whole answer was read).
    wrong = sa.select(sa.type_coerce(tables.targets.c.path, sa.Integer)
                      .label('path')).where(
        tables.targets.c.traversal == sa.bindparam('traversal'))
    with pytest.raises(ValueError):
        reader.read(heat_engine, wrong, {'traversal': HELD[1]})
    # A read cut short after the column count (an interrupt): the rest of
    # the answer is still on that connection, which must not be read from
    # again.
    original = pymysql.connections.Connection._read_packet
    packets = []

    def cut(self, *args, **kwargs):
        packets.append(1)
        if len(packets) > 1:
            raise KeyboardInterrupt
        return original(self, *args, **kwargs)
    with mock.patch.object(pymysql.connections.Connection, '_read_packet',
                           cut):
        with pytest.raises(KeyboardInterrupt):
            reader.read(heat_engine, query, params)
    for _ in range(reader.POOL_SIZE + 1):
        rows = reader.read(heat_engine, query, params)
        assert len(rows) == 6
