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
"""Command output values: exact for JSON and YAML, safe text otherwise.

Resource names, status reasons and inputs come from templates. cliff's
``table`` formatter prints a column's ``human_readable()``, but ``value``,
``shell`` and ``csv`` print ``str()`` of the raw value, which is a Python
repr for a dict, ``None`` or ``False``. So the commands shape their values
for the chosen formatter here: JSON and YAML get them exactly as they are;
every text format gets text with control characters and escape sequences
escaped (:func:`heatclient_ext.printable.printable`), numbers as numbers,
``None`` as empty, booleans and containers as JSON. Text made of lines
of our own (:class:`Lines`) keeps its line breaks in every text format.
"""

import argparse
import json

from cliff import columns

from heatclient_ext import printable

_safe = printable.printable

#: Formatters whose output is a data format that escapes by itself.
EXACT_FORMATS = ('json', 'yaml')


def _raw(value):
    if isinstance(value, columns.FormattableColumn):
        return value.machine_readable()
    return value


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True,
                      default=str)


class Lines(str):
    """Text made of lines of our own (a planned change).

    Its line breaks stay in every text format, each line escaped.
    """


def text(value, multiline=False):
    """One value as safe text for a text format.

    Strings are escaped; numbers stay numbers; ``None`` is empty;
    booleans and containers read as JSON. With ``multiline`` (a table
    cell) line breaks stay, a mapping is one ``key=value`` per line and a
    list one item per line, each value as JSON.
    """
    value = _raw(value)
    if value is None:
        return ''
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        if multiline or isinstance(value, Lines):
            # a table cell may span lines; each line is escaped
            return '\n'.join(_safe(line) for line in value.splitlines())
        return _safe(value)
    if multiline and isinstance(value, dict):
        return '\n'.join(_safe('%s=%s' % (key, _json(value[key])))
                         for key in sorted(value, key=str))
    if multiline and isinstance(value, (list, tuple)):
        return '\n'.join(
            _safe(item if isinstance(item, str) else _json(item))
            for item in value)
    return _safe(_json(value))


def formatter_of(parsed_args: argparse.Namespace) -> str:
    return getattr(parsed_args, 'formatter', None) or 'table'


def values(parsed_args: argparse.Namespace, row):
    """One row (or a ShowOne's values) shaped for the chosen formatter."""
    fmt = formatter_of(parsed_args)
    if fmt in EXACT_FORMATS:
        return tuple(_raw(value) for value in row)
    return tuple(text(value, multiline=fmt == 'table') for value in row)


def rows(parsed_args: argparse.Namespace, table) -> list:
    """Every row of a Lister's table, shaped for the chosen formatter."""
    return [values(parsed_args, row) for row in table]
