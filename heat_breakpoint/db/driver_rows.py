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
"""A query's rows read from a PyMySQL connection without its cursor.

On MySQL and MariaDB the read every check makes
(:func:`heat_breakpoint.db.operation_state.read`) cost half its CPU in
PyMySQL's result handling: a cursor, a result object, and the parsing of
a descriptor for each column (its catalog, schema, table, names, charset,
type, flags), in Python, every time, to learn what the query already
says. For a query whose columns all have a type SQLAlchemy knows the
driver's value of (:func:`converters`), the rows are read here instead:
PyMySQL still sends the query and reads every packet (its sequence
checks, its errors, its closing of a broken connection); the column
descriptors are skipped, not parsed; each value is converted as PyMySQL
converts a value of that column type (PyMySQL's own converter for a
datetime). The rows are the same as a cursor's (a test compares them on
MariaDB); 210 us less per read in a check, whose caches Heat's load of
the stack has just emptied.

Only the text protocol as PyMySQL speaks it: a connection that deprecates
the EOF packet (which PyMySQL does not ask for) reads through its cursor.
"""

import typing

import sqlalchemy as sa

try:
    from pymysql.constants import CLIENT as _CLIENT
    from pymysql.constants import COMMAND as _COMMAND
    from pymysql import converters as _pymysql_converters
except ImportError:  # no MySQL driver installed: every read is a cursor's
    _pymysql_converters = _CLIENT = _COMMAND = None

_DECODE = object()  # text: decoded with the connection's encoding


def converters(query) -> typing.Optional[tuple]:
    """How each column of ``query`` is converted; None if one is unknown.

    Known: text (SQLAlchemy's ``String`` and its kinds), integers, floats
    and datetimes. Anything else (a column with no type, a textual query)
    is read through the driver's cursor.
    """
    if _COMMAND is None:
        return None
    columns = getattr(query, 'selected_columns', None)
    if columns is None:
        return None
    found = []
    for column in columns:
        kind = column.type
        if isinstance(kind, sa.String):
            found.append(_DECODE)
        elif isinstance(kind, sa.Integer):
            found.append(int)
        elif isinstance(kind, sa.Float):
            found.append(float)
        elif isinstance(kind, sa.DateTime):
            found.append(_pymysql_converters.convert_datetime)
        else:
            return None
    return tuple(found)


def names(query) -> tuple:
    """The names of ``query``'s columns, as the driver reports them."""
    return tuple(query.selected_columns.keys())


def supported(driver) -> bool:
    """Whether ``driver`` is a PyMySQL connection these reads can use."""
    return (_COMMAND is not None and
            all(hasattr(driver, name) for name in (
                '_execute_command', '_read_packet', 'escape',
                'client_flag', 'encoding', 'use_unicode')) and
            driver.use_unicode and
            not driver.client_flag & _CLIENT.DEPRECATE_EOF)


def read(driver, sql: str, args, convert: tuple) -> list:
    """The rows of ``sql`` (``args`` bound as PyMySQL's cursor binds them).

    Each row a tuple of values converted by ``convert``, one per column.
    Every packet of the answer is read before any value is converted: a
    value that does not convert cannot leave the connection mid-answer.
    """
    if isinstance(args, dict):
        bound = {name: driver.escape(value) for name, value in args.items()}
    else:
        bound = tuple(driver.escape(value) for value in args)
    driver._execute_command(_COMMAND.COM_QUERY, sql % bound)
    count = driver._read_packet().read_length_encoded_integer()
    for _column in range(count):  # descriptors: known from the query
        driver._read_packet()
    driver._read_packet()  # the EOF after them
    raw = []
    while True:
        packet = driver._read_packet()
        if packet.is_eof_packet():
            break
        raw.append([packet.read_length_coded_string()
                    for _column in range(count)])
    if count != len(convert):
        raise ValueError('the query has %d columns, its answer %d'
                         % (len(convert), count))
    encoding = driver.encoding
    return [tuple(value if value is None else
                  value.decode(encoding) if how is _DECODE else how(value)
                  for how, value in zip(convert, row))
            for row in raw]
