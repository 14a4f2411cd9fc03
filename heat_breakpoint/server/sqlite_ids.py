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
"""Make SQLite never give a deleted row's id to a new row, as Heat expects.

MySQL and PostgreSQL never hand out an auto-increment id twice. SQLite
does: a table whose ``INTEGER PRIMARY KEY`` is not ``AUTOINCREMENT`` gives
a new row the largest id in use plus one, so deleting the newest row frees
its id for the next insert. Heat's schema (SQLAlchemy on SQLite) has no
``AUTOINCREMENT``, and Heat 27 keeps ids of rows it has deleted:

``Resource.state_set`` calls ``clear_stored_attributes()`` when a resource
goes IN_PROGRESS; that deletes the ``resource_properties_data`` row of its
attributes but leaves ``Resource._attr_data_id`` set. When the update ends,
``CheckResource`` calls ``clear_stored_attributes()`` again on the same
object and deletes that id a second time. On MySQL nothing is left to
delete. On SQLite the id has meanwhile gone to the properties of a
resource created in between (a replacement inside a nested stack), which
are deleted: that resource can no longer be loaded (``ResourcePropertiesData
with id N not found``), ``check_resource`` drops such a node without a word,
and the nested stack's delete waits for it forever.

So the local server rebuilds, once, every table whose primary key is one
``INTEGER`` column with ``AUTOINCREMENT``, SQLite's way of never reusing an
id, keeping rows, indexes and triggers.
"""

import re
import typing

import sqlalchemy

from oslo_log import log as logging

LOG = logging.getLogger(__name__)

_NEW_SUFFIX = '__autoincrement'


def autoincrement_sql(create_sql: str, table: str,
                      column: str) -> typing.Optional[str]:
    """``create_sql`` for ``table`` with ``column`` never reusing an id.

    The column becomes ``INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT`` and
    the table's ``PRIMARY KEY (column)`` constraint goes; the table is
    named ``<table>__autoincrement``. None when the statement is not the
    shape SQLAlchemy writes (the table is then left as it is).
    """
    if re.search(r'\bAUTOINCREMENT\b', create_sql, re.I):
        return None
    name = re.compile(r'^\s*CREATE\s+TABLE\s+("?)%s\1\s*\(' % re.escape(table),
                      re.I)
    col = re.compile(r'([(,]\s*)("?)%s\2(\s+INTEGER)(\s+NOT\s+NULL)?(?=\s*,)'
                     % re.escape(column), re.I)
    key = re.compile(r',\s*(CONSTRAINT\s+\S+\s+)?PRIMARY\s+KEY\s*\(\s*("?)%s'
                     r'\2\s*\)' % re.escape(column), re.I)
    if not (len(name.findall(create_sql)) == len(col.findall(create_sql)) ==
            len(key.findall(create_sql)) == 1):
        return None
    sql = name.sub('CREATE TABLE "%s%s" (' % (table, _NEW_SUFFIX), create_sql)
    sql = key.sub('', sql)
    return col.sub(lambda m: '%s"%s" INTEGER NOT NULL PRIMARY KEY '
                   'AUTOINCREMENT' % (m.group(1), column), sql)


def _integer_key(con, table: str) -> typing.Optional[str]:
    """The table's primary key column if it is one INTEGER column."""
    keys = [(row[1], row[2]) for row in
            con.execute('PRAGMA table_info("%s")' % table) if row[5]]
    if len(keys) == 1 and keys[0][1].upper() == 'INTEGER':
        return keys[0][0]
    return None


def _rebuild(con, table: str, new_sql: str) -> None:
    """SQLite's documented way to change a table: copy, drop, rename."""
    new = table + _NEW_SUFFIX
    columns = ', '.join('"%s"' % row[1] for row in
                        con.execute('PRAGMA table_info("%s")' % table))
    extras = [sql for (sql,) in con.execute(
        "SELECT sql FROM sqlite_master WHERE tbl_name = ? AND "
        "type IN ('index', 'trigger') AND sql IS NOT NULL", (table,))]
    con.execute(new_sql)
    con.execute('INSERT INTO "%s" (%s) SELECT %s FROM "%s"'
                % (new, columns, columns, table))
    con.execute('DROP TABLE "%s"' % table)
    con.execute('ALTER TABLE "%s" RENAME TO "%s"' % (new, table))
    for sql in extras:
        con.execute(sql)


def never_reuse_ids(engine: sqlalchemy.engine.Engine) -> typing.List[str]:
    """Give every single-INTEGER primary key AUTOINCREMENT; the tables done.

    Idempotent: a table already converted is left alone, so this runs on
    every start (a later migration that rebuilds a table is caught too).
    """
    if engine.dialect.name != 'sqlite':
        return []
    raw = engine.raw_connection()
    con = raw.driver_connection
    old_isolation = con.isolation_level
    con.isolation_level = None  # our own BEGIN and COMMIT
    done = []
    try:
        # Other tables' foreign keys name the tables rebuilt: not checked
        # while the old table is gone (oslo.db leaves them off anyway).
        con.execute('PRAGMA foreign_keys=OFF')
        con.execute('BEGIN IMMEDIATE')
        try:
            tables = con.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'table' "
                "AND name NOT LIKE 'sqlite_%' ORDER BY name").fetchall()
            for table, create_sql in tables:
                column = _integer_key(con, table)
                if column is None:
                    continue
                new_sql = autoincrement_sql(create_sql, table, column)
                if new_sql is None:
                    if not re.search(r'\bAUTOINCREMENT\b', create_sql, re.I):
                        LOG.warning('Table %s keeps SQLite reusing ids: '
                                    'its schema is not understood', table)
                    continue
                _rebuild(con, table, new_sql)
                done.append(table)
            con.execute('COMMIT')
        except BaseException:
            con.execute('ROLLBACK')
            raise
    finally:
        con.isolation_level = old_isolation
        raw.close()
    if done:
        LOG.info('SQLite ids are never reused in %s', ', '.join(done))
    return done
