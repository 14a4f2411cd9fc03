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
"""Which queries are read past PyMySQL's cursor, and which connections.

The rows themselves are compared with a cursor's on MariaDB
(``tests/distributed/test_0_driver_rows.py``).
"""

import datetime

from pymysql.constants import CLIENT
import sqlalchemy as sa

from heat_breakpoint.db import driver_rows
from heat_breakpoint.db import operation_state

TABLE = sa.table('t', sa.column('name', sa.String(16)),
                 sa.column('body', sa.Text), sa.column('count', sa.Integer),
                 sa.column('seconds', sa.Float),
                 sa.column('at', sa.DateTime), sa.column('free'),
                 sa.column('flag', sa.Boolean),
                 sa.column('money', sa.Numeric(10, 2)))


def test_known_types_convert_as_pymysql_does():
    convert = driver_rows.converters(sa.select(
        TABLE.c.count, TABLE.c.seconds, TABLE.c.at))
    assert [how(value) for how, value in zip(
        convert, (b'42', b'12.25', b'2026-12-02 14:33:17'))] == [
        42, 12.25, datetime.datetime(2026, 12, 2, 14, 33, 17)]


def test_a_column_of_unknown_type_reads_through_the_cursor():
    for column in ('free', 'flag', 'money'):
        assert driver_rows.converters(sa.select(
            TABLE.c.name, TABLE.c[column])) is None, column
    assert driver_rows.converters(sa.text('SELECT 1')) is None
    assert driver_rows.converters(sa.select(TABLE.c.name, TABLE.c.body)) \
        is not None


def test_the_state_query_is_read_past_the_cursor():
    query = operation_state._STATE_QUERY
    assert driver_rows.converters(query) is not None
    assert driver_rows.names(query) == (
        'path', 'kind', 'held', 'paused_seconds', 'since')


class _Connection:
    _execute_command = _read_packet = escape = None
    encoding = 'utf8'

    def __init__(self, client_flag=0, use_unicode=True):
        self.client_flag, self.use_unicode = client_flag, use_unicode


def test_only_a_connection_speaking_as_pymysql_does():
    assert driver_rows.supported(_Connection())
    # EOF packets deprecated: answers end differently.
    assert not driver_rows.supported(_Connection(CLIENT.DEPRECATE_EOF))
    assert not driver_rows.supported(_Connection(use_unicode=False))
    assert not driver_rows.supported(object())  # e.g. sqlite3's
