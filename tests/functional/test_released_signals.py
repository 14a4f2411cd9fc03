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
"""Held resources that talk to Keystone go on after their release.

A wait condition handle and a signalled software deployment make a
stack user, keys or a token when they are created (Heat's Keystone
wrapper: the simulated cloud's on the local server). A breakpoint on
one, released by ``breakpoint continue``, ``breakpoint step`` or a stock
``openstack stack hook clear``, must end as Heat's own ``pre-create``
hook on the same resource ends, cleared the same way: COMPLETE. The
released check goes on with the stack's stored credentials, whatever
thread served the release (a stock hook clear is served on a thread of
Heat's own).
"""

import uuid

import pytest
import yaml

from heat_breakpoint.model import reasons
from heat_breakpoint.server import fixture
from tests.functional import conftest
from tests.functional import utils

WEB = utils.example('web_server.yaml')

HANDLE = {
    'heat_template_version': '2021-04-16',
    'resources': {
        'handle': {'type': 'OS::Heat::WaitConditionHandle'},
        'wait': {'type': 'OS::Heat::WaitCondition', 'properties': {
            'handle': {'get_resource': 'handle'}, 'count': 1,
            'timeout': 120}},
    }}


def deployment(transport, server_transport='POLL_SERVER_HEAT'):
    return {
        'heat_template_version': '2021-04-16',
        'resources': {
            'web': {'type': 'OS::Nova::Server', 'properties': {
                'image': 'cirros', 'flavor': 'm1.small',
                # The project's other stacks make networks of their own:
                # as in Nova, a server naming none would be refused.
                'networks': [{'network': 'private'}],
                'user_data_format': 'SOFTWARE_CONFIG',
                'software_config_transport': server_transport}},
            'config': {'type': 'OS::Heat::SoftwareConfig', 'properties': {
                'group': 'script', 'outputs': [{'name': 'result'}],
                'config': '#!/bin/sh\necho done\n'}},
            'deploy': {'type': 'OS::Heat::SoftwareDeployment',
                       'properties': {
                           'config': {'get_resource': 'config'},
                           'server': {'get_resource': 'web'},
                           'signal_transport': transport}},
        }}


#: kind: (template, the resource held, what the test signals, if any)
KINDS = {
    'wait-handle': (HANDLE, 'handle', 'handle'),
    'heat-signal': (deployment('HEAT_SIGNAL'), 'deploy', None),
    'cfn-signal': (deployment('CFN_SIGNAL'), 'deploy', None),
    'temp-url-signal': (deployment('TEMP_URL_SIGNAL'), 'deploy', None),
    'zaqar-signal': (deployment('ZAQAR_SIGNAL', 'ZAQAR_MESSAGE'), 'deploy',
                     None),
    'web-server': (WEB, 'ready', None),
}
RELEASES = ('continue', 'step', 'hook-clear')
NATIVE_PAUSED = reasons.NATIVE_PAUSED % {'action': 'CREATE',
                                         'hook': 'pre-create'}


@pytest.fixture(scope='module')
def server():
    with fixture.local_heat('heat-breakpoint-signals-',
                            '--no-leaf-sleep') as local:
        yield local


def _template_file(tmp_path, template):
    if isinstance(template, str):
        return template
    path = tmp_path / 'template.yaml'
    path.write_text(yaml.safe_dump(template))
    return str(path)


def _osc(server, *argv):
    code, out, err = conftest.run_openstack(server, *argv)
    assert code == 0, (argv, out, err)
    return out


def _wait_done(hc, stack, name):
    """The resource's CREATE ends (not held): its status and reason."""
    def done():
        rsrc = hc.resources.get(stack, name)
        return (rsrc.resource_status in ('CREATE_COMPLETE',
                                         'CREATE_FAILED') and rsrc)
    rsrc = utils.wait_for(done, 120, what='%s created' % name)
    return rsrc.resource_status, rsrc.resource_status_reason


def _held(hc, stack, name):
    """Held at a ``pre-create`` hook: Heat's own, or a breakpoint's."""
    def held():
        return any(NATIVE_PAUSED in (event.resource_status_reason or '')
                   for event in utils.events(hc, stack, name)) or None
    utils.wait_for(held, 120, what='%s held' % name)


def _created_held(server, tmp_path, kind, prefix, flag):
    """A stack of KIND created with FLAG on its resource, that one held.

    (client, stack, held resource, resource signalled to finish).
    """
    template, held, signalled = KINDS[kind]
    hc = server.client()
    stack = '%s-%s' % (prefix, uuid.uuid4().hex[:6])
    _osc(server, 'stack', 'create', stack, '-t',
         _template_file(tmp_path, template), flag, held)
    _held(hc, stack, held)
    return hc, stack, held, signalled


def _finish(server, hc, stack, signalled):
    if signalled:
        hc.resources.signal(stack, signalled, data={'status': 'SUCCESS'})
    utils.wait_stack(hc, stack, 'CREATE_COMPLETE', timeout=180)


@pytest.mark.parametrize('release', RELEASES)
@pytest.mark.parametrize('kind', sorted(KINDS))
def test_released_breakpoint_completes(server, tmp_path, kind, release):
    hc, stack, held, signalled = _created_held(
        server, tmp_path, kind, 'signals', '--breakpoint')
    if release == 'hook-clear':
        _osc(server, 'stack', 'hook', 'clear', stack, held)
    else:
        _osc(server, 'stack', 'breakpoint', release, stack)
    assert _wait_done(hc, stack, held)[0] == 'CREATE_COMPLETE', \
        _wait_done(hc, stack, held)
    if release == 'step':
        # A step holds the resources after this one, if any: go on.
        code, _, err = conftest.run_openstack(
            server, 'stack', 'breakpoint', 'continue', stack)
        assert code == 0 or 'Nothing is held' in err, err
    _finish(server, hc, stack, signalled)


@pytest.mark.parametrize('kind', sorted(KINDS))
def test_stock_hook_on_the_same_resource_completes(server, tmp_path, kind):
    """What a released breakpoint is compared with: Heat's own hook."""
    hc, stack, held, signalled = _created_held(
        server, tmp_path, kind, 'stock', '--pre-create')
    _osc(server, 'stack', 'hook', 'clear', stack, held)
    assert _wait_done(hc, stack, held)[0] == 'CREATE_COMPLETE'
    _finish(server, hc, stack, signalled)


#: An admin-only resource type (Heat's policy), in a nested stack made
#: after the hold: the released work must have the operation's roles.
ADMIN_ONLY = {
    'heat_template_version': '2021-04-16',
    'resources': {
        'first': {'type': 'OS::Heat::RandomString'},
        'group': {'type': 'OS::Heat::ResourceGroup', 'depends_on': ['first'],
                  'properties': {'count': 1, 'resource_def': {
                      'type': 'OS::Nova::Flavor',
                      'properties': {'ram': 512, 'vcpus': 1}}}},
    }}


def test_released_work_keeps_the_operation_s_roles(server, tmp_path):
    hc = server.client()
    stack = 'roles-%s' % uuid.uuid4().hex[:6]
    _osc(server, 'stack', 'create', stack, '-t',
         _template_file(tmp_path, ADMIN_ONLY), '--breakpoint', 'first')
    _held(hc, stack, 'first')
    _osc(server, 'stack', 'hook', 'clear', stack, 'first')
    assert _wait_done(hc, stack, 'group') == ('CREATE_COMPLETE',
                                              'state changed')
    utils.wait_stack(hc, stack, 'CREATE_COMPLETE')


@pytest.mark.parametrize('server_transport', ['POLL_SERVER_HEAT',
                                              'ZAQAR_MESSAGE'])
def test_a_zaqar_signal_deployment_without_breakpoints(server, tmp_path,
                                                       server_transport):
    """Zaqar is simulated: its queues too (no zaqar.simulated.invalid)."""
    hc = server.client()
    stack = 'zaqar-%s' % uuid.uuid4().hex[:6]
    template = deployment('ZAQAR_SIGNAL', server_transport)
    template['outputs'] = {'stdout': {'value': {
        'get_attr': ['deploy', 'deploy_stdout']}}}
    _osc(server, 'stack', 'create', stack, '-t',
         _template_file(tmp_path, template), '--wait')
    stdout = hc.stacks.output_show(stack, 'stdout')['output'][
        'output_value']
    assert stdout.startswith('simulated: ') and 'ran on server' in stdout
    _osc(server, 'stack', 'delete', stack, '--yes', '--wait')
