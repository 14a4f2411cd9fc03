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
"""The local server's SQLite never gives a deleted row's id to a new row."""

from oslo_db.sqlalchemy import engines
import pytest
import sqlalchemy as sa

from heat_breakpoint.server import sqlite
from heat_breakpoint.server import sqlite_ids

# What SQLAlchemy writes for a table like Heat's (sqlite_master's text).
RESOURCE_SQL = (
    'CREATE TABLE resource (\n'
    '\tid INTEGER NOT NULL, \n'
    '\tname VARCHAR(255), \n'
    '\tresource_id INTEGER, \n'
    '\tstack_id VARCHAR(36) NOT NULL, \n'
    '\tPRIMARY KEY (id), \n'
    '\tFOREIGN KEY(stack_id) REFERENCES stack (id)\n'
    ')')


def test_the_key_column_gets_autoincrement_and_the_constraint_goes():
    sql = sqlite_ids.autoincrement_sql(RESOURCE_SQL, 'resource', 'id')
    assert sql == (
        'CREATE TABLE "resource__autoincrement" (\n'
        '\t"id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, \n'
        '\tname VARCHAR(255), \n'
        '\tresource_id INTEGER, \n'
        '\tstack_id VARCHAR(36) NOT NULL, \n'
        '\tFOREIGN KEY(stack_id) REFERENCES stack (id)\n'
        ')')


def test_a_named_key_constraint_last_in_a_quoted_table():
    sql = ('CREATE TABLE "event" (\n\t"id" INTEGER, \n\tx TEXT, \n'
           '\tCONSTRAINT event_pk PRIMARY KEY ("id")\n)')
    assert sqlite_ids.autoincrement_sql(sql, 'event', 'id') == (
        'CREATE TABLE "event__autoincrement" (\n'
        '\t"id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, \n'
        '\tx TEXT\n)')


@pytest.mark.parametrize('sql', [
    # Already done.
    'CREATE TABLE t (id INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, x TEXT)',
    # The key inline, or no key constraint: not SQLAlchemy's shape.
    'CREATE TABLE t (id INTEGER PRIMARY KEY, x TEXT)',
    'CREATE TABLE t (id INTEGER NOT NULL, x TEXT)',
    # Another table's statement.
    'CREATE TABLE u (id INTEGER NOT NULL, x TEXT, PRIMARY KEY (id))',
])
def test_statements_of_another_shape_are_left_alone(sql):
    assert sqlite_ids.autoincrement_sql(sql, 't', 'id') is None


@pytest.fixture
def engine(tmp_path):
    engine = engines.create_engine('sqlite:///%s' % (tmp_path / 'h.sqlite'))
    meta = sa.MetaData()
    sa.Table('stack', meta, sa.Column('id', sa.String(36), primary_key=True))
    sa.Table('data', meta,
             sa.Column('id', sa.Integer, primary_key=True),
             sa.Column('value', sa.Text),
             sa.Column('stack_id', sa.String(36), sa.ForeignKey('stack.id'),
                       index=True))
    sa.Table('pair', meta,
             sa.Column('a', sa.Integer, primary_key=True),
             sa.Column('b', sa.Integer, primary_key=True))
    meta.create_all(engine)
    with engine.begin() as conn:
        conn.exec_driver_sql("INSERT INTO stack VALUES ('s')")
        for value in ('one', 'two', 'three'):
            conn.exec_driver_sql(
                "INSERT INTO data (value, stack_id) VALUES (?, 's')",
                (value,))
    yield engine
    engine.dispose()


def _reinsert_after_deleting_newest(conn):
    newest = conn.exec_driver_sql('SELECT MAX(id) FROM data').scalar()
    conn.exec_driver_sql('DELETE FROM data WHERE id = ?', (newest,))
    conn.exec_driver_sql("INSERT INTO data (value, stack_id) "
                         "VALUES ('new', 's')")
    return newest, conn.exec_driver_sql('SELECT MAX(id) FROM data').scalar()


def test_plain_sqlite_reuses_the_newest_deleted_id(engine):
    # What Heat's schema does on SQLite without the conversion.
    with engine.begin() as conn:
        deleted, new = _reinsert_after_deleting_newest(conn)
    assert new == deleted


def test_converted_tables_never_reuse_an_id_and_keep_rows(engine):
    assert sqlite_ids.never_reuse_ids(engine) == ['data']
    sqlite.harden(engine)
    with engine.begin() as conn:
        assert [tuple(r) for r in conn.exec_driver_sql(
            'SELECT id, value FROM data ORDER BY id')] == [
                (1, 'one'), (2, 'two'), (3, 'three')]
        deleted, new = _reinsert_after_deleting_newest(conn)
        assert new == deleted + 1
        indexes = [r[1] for r in conn.exec_driver_sql(
            "PRAGMA index_list('data')")]
        foreign = [tuple(r)[2:4] for r in conn.exec_driver_sql(
            "PRAGMA foreign_key_list('data')")]
    assert 'ix_data_stack_id' in indexes
    assert foreign == [('stack', 'stack_id')]


def test_converting_again_changes_nothing(engine):
    sqlite_ids.never_reuse_ids(engine)
    with engine.connect() as conn:
        before = conn.exec_driver_sql(
            'SELECT sql FROM sqlite_master ORDER BY name').fetchall()
    assert sqlite_ids.never_reuse_ids(engine) == []
    with engine.connect() as conn:
        assert conn.exec_driver_sql(
            'SELECT sql FROM sqlite_master ORDER BY name').fetchall() == before
