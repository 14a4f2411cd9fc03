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
"""Text from templates and events, made safe to print on a terminal.

Resource names, status reasons and event texts come from whoever wrote the
template. Printed raw, a control character or an ANSI escape sequence in
them would move the cursor, recolour or clear the user's terminal (and a
live ``watch`` redraws it often). Tables and plain text pass every such
string through :func:`printable`; JSON output stays exact, since its
encoder escapes control characters itself.
"""


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xff:
        return '\\x%02x' % code
    if code <= 0xffff:
        return '\\u%04x' % code
    return '\\U%08x' % code


def printable(value) -> str:
    """``value`` as text with every non-printable character escaped.

    Spaces stay; tabs, newlines, ESC, C1 controls, bidirectional overrides
    and other invisible format characters read as ``\\xNN`` / ``\\uNNNN``.
    Non-text values (None, numbers) are returned unchanged, so table
    formatters still see them as they are.
    """
    if not isinstance(value, str):
        return value
    if value.isprintable():
        return value
    return ''.join(char if char.isprintable() else _escape(char)
                   for char in value)
