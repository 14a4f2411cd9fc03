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

import pytest

from heatclient_ext.printable import printable


@pytest.mark.parametrize('raw, shown', [
    ('web_1', 'web_1'),
    ('nœud été', 'nœud été'),
    ('a\x1b[2Jb', 'a\\x1b[2Jb'),
    ('line\nnext', 'line\\x0anext'),
    ('tab\there', 'tab\\x09here'),
    ('\x9bc1', '\\x9bc1'),
    ('rtl\u202eevil', 'rtl\\u202eevil'),
    ('del\x7f', 'del\\x7f'),
])
def test_escapes_what_a_terminal_would_act_on(raw, shown):
    assert printable(raw) == shown


@pytest.mark.parametrize('value', [None, 3, 2.5, True])
def test_leaves_non_text_alone(value):
    assert printable(value) is value
