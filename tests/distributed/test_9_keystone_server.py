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
"""``heat-breakpoint-server --keystone URL`` against the tier's Keystone.

The local server writes the pipeline a cloud runs (keystonemiddleware's
``authtoken`` with our filter) and heat.conf with Keystone, says so when
it starts, and leaves Keystone to Keystone: its simulated cloud
simulates every other service.
"""

import os
import tempfile

import requests

from heat_breakpoint.server import fixture
from heatclient_ext.v1 import manager as bp_v1
from tests.distributed import common
from tests.distributed import identity


def test_the_local_server_with_keystone(keystone, monkeypatch):
    for name, value in keystone.env(identity.HEAT_USER,
                                    identity.SERVICE_PROJECT).items():
        monkeypatch.setenv(name, value)
    state = tempfile.mkdtemp(prefix='heat-breakpoint-keystone-server-')
    server = fixture.LocalHeatProcess(
        os.path.join(state, 'state'),
        extra_args=['--keystone', keystone.url]).start(reset=True)
    try:
        banner = server.read_output()
        assert 'Auth: Keystone at %s: ' % keystone.url in banner, banner
        assert 'export OS_AUTH_TYPE=password' in banner, banner
        assert 'OS_AUTH_TYPE=none' not in banner, banner
        assert 'simulated cloud:' in banner and 'keystone' not in \
            banner.split('simulated cloud:')[1].split('\n')[0], banner

        endpoint = '%s/v1/%s' % (server.url, keystone.ids['alpha'])
        assert requests.get(endpoint + '/stacks',
                            timeout=30).status_code == 401

        def client(user):
            from heatclient import client as heat_client
            return heat_client.Client(
                '1', session=keystone.session(user),
                endpoint_override=endpoint)
        hc = client('alpha-member')
        names = ['a', 'b']
        hc.stacks.create(stack_name='local', template=common.chain(names),
                         environment=common.breakpoint_env('b'))
        common.wait_held_set(hc, 'local', ['b'])
        reader = bp_v1.BreakpointManager(client('alpha-reader'))
        assert [row['resource'] for row in reader.held_now('local')[1]] \
            == ['b']
        try:
            reader.continue_('local')
        except Exception as exc:  # noqa: the refusal is the point
            assert 'not authorized to use breakpoints:continue' in str(exc)
        else:
            raise AssertionError('a reader continued the operation')
        bp_v1.BreakpointManager(hc).continue_('local')
        common.wait_stack(hc, 'local', 'CREATE_COMPLETE')
    finally:
        server.remove()
        os.rmdir(state)
