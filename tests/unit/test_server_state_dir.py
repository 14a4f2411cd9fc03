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
"""One local server per state directory: its database's only writer.

The checks of a local server keep what they read of a running operation
until the server writes it again (``tables.only_writer``): a second
server on the same directory would write behind its back, so it is
refused before it touches the database.
"""

import pytest

from heat_breakpoint.db import tables
from heat_breakpoint.server import config as local_config
from heat_breakpoint.server import local_heat


@pytest.fixture
def servers(tmp_path):
    made = []

    def server():
        made.append(local_heat.LocalHeat(str(tmp_path)))
        return made[-1]
    yield server
    for each in made:
        each.stop()
    tables.only_writer(False)


def test_a_second_server_on_the_same_state_directory_is_refused(
        servers, tmp_path):
    first = servers()
    first._hold_state_dir()
    assert tables.writes() is not None
    with pytest.raises(local_config.SetupError) as raised:
        servers()._hold_state_dir()
    assert str(tmp_path) in str(raised.value)
    assert 'in use by another local Heat' in str(raised.value)
    # The first one still holds it, and is still the only writer.
    assert tables.writes() is not None


def test_the_directory_is_free_once_its_server_stopped(servers):
    first = servers()
    first._hold_state_dir()
    first.stop()
    assert tables.writes() is None
    servers()._hold_state_dir()
    assert tables.writes() is not None
