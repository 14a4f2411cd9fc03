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
"""The engine plugin on the legacy engine (``convergence_engine = false``).

Heat runs a legacy stack in one cooperative task, so the hold waits in
that task; the user sees the same thing as under convergence.
"""

import os
import tempfile
from unittest import mock

import pytest

from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons
from heatclient_ext.v1 import manager as bp_v1
from tests.functional import conftest
from tests.functional import test_engine
from tests.functional import utils


@pytest.fixture(scope='module')
def legacy_server():
    state = tempfile.mkdtemp(prefix='heat-breakpoint-legacy-')
    conf = os.path.join(state + '-legacy.conf')
    with open(conf, 'w') as f:
        f.write('[DEFAULT]\nconvergence_engine = false\n')
    server = conftest.LocalHeatProcess(state, config_files=[conf])
    yield server.start(reset=True)
    server.remove()
    os.unlink(conf)


def test_legacy_create_holds_and_releases(legacy_server, stack_name):
    heat = legacy_server.client()
    test_engine.create(heat, stack_name, 'two_branches.yaml', 'a2')
    held = test_engine.wait_held(heat, stack_name, 'a2')
    utils.wait_resource(heat, stack_name, 'b3', 'CREATE_COMPLETE')
    assert held.physical_resource_id in ('', None)
    assert reasons.parse_held(held.resource_status_reason)['name'] == 'a2'
    found = utils.resources(heat, stack_name)
    assert found['a3'].resource_status == 'INIT_COMPLETE'
    assert utils.stack_status(heat, stack_name) == 'CREATE_IN_PROGRESS'
    # The breakpoints view finds the legacy engine's hold, as the client's
    # own listing does.
    manager = bp_v1.BreakpointManager(heat)
    rows = manager.list(stack_name)
    assert [(r['resource'], r['state'], r['form']) for r in rows] == [
        ('a2', 'held', 'plugin')]
    shared = ('resource', 'action', 'state', 'held_since', 'hook', 'form',
              'breakpoint', 'stack', 'resource_name')
    with mock.patch.object(manager.reading, 'view', return_value=None):
        assert [{k: r[k] for k in shared} for r in rows] == [
            {k: r[k] for k in shared} for r in manager.list(stack_name)]

    code, out, err = conftest.run_openstack(
        legacy_server, 'stack', 'hook', 'clear', stack_name, 'a2')
    assert code == 0, err
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    test_engine.assert_created_once(heat, stack_name,
                                    ['a1', 'a2', 'a3', 'b1', 'b2', 'b3'])
    reasons_seen = [e.resource_status_reason
                    for e in heat.events.list(stack_name,
                                              resource_name='a2')]
    assert reasons.released('a2', protocol.RELEASE_HOOK_CLEAR) in \
        reasons_seen
