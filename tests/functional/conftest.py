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
"""Fixtures for the functional tier: a real local Heat, started once.

``heat_server`` runs ``python -m heat_breakpoint.server`` in a separate
process on a free port with a fresh state directory, exactly as a user
would, and stops it at the end of the session.
"""

import contextlib
import os
import shutil
import tempfile
import uuid

import pytest

from heat_breakpoint.server.fixture import free_port  # noqa: F401
from heat_breakpoint.server.fixture import LocalHeatProcess
from heat_breakpoint.server.fixture import START_TIMEOUT  # noqa: F401
from tests import osc_shell


# One in-process OSC shell for the tiers and the benchmarks.
forget_osc_clients = osc_shell.forget_osc_clients
run_openstack = osc_shell.run_openstack


@contextlib.contextmanager
def stock_heat(prefix):
    """A local Heat with the plugin disabled: breakpoints are native hooks.

    Started in a new state directory (named with ``prefix``), removed
    after.
    """
    state_dir = tempfile.mkdtemp(prefix=prefix)
    conf = os.path.join(state_dir, 'stock.conf')
    with open(conf, 'w') as out:
        out.write('[breakpoint]\nenabled = false\n')
    server = LocalHeatProcess(os.path.join(state_dir, 'state'),
                              config_files=[conf])
    server.start(reset=True)
    try:
        yield server
    finally:
        server.remove()
        shutil.rmtree(state_dir, ignore_errors=True)


@contextlib.contextmanager
def local_heat(prefix):
    """A local Heat in a new state directory named PREFIX...; then removed."""
    server = LocalHeatProcess(tempfile.mkdtemp(prefix=prefix)).start(
        reset=True)
    try:
        yield server
    finally:
        server.remove()


@pytest.fixture(scope='session')
def heat_server():
    with local_heat('heat-breakpoint-functional-') as server:
        yield server


@pytest.fixture
def heat(heat_server):
    return heat_server.client()


@pytest.fixture
def stack_name():
    return 'test-%s' % uuid.uuid4().hex[:8]
