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
"""Breakpoints on public templates with servers, ports and deployments.

On the local server's simulated cloud, as a template author would debug
them: before a server its inputs (the hidden database password in its
boot script masked), after a port its fixed IPs, an update that changes a
server's image held as a replacement, a software deployment's simulated
outputs, and ``continue`` to completion.
"""

import ipaddress
import json
import os
import uuid

import pytest

from heat_breakpoint.server import fixture
from tests.corpus import corpus
from tests.functional import conftest
from tests.functional import utils

ROOT = corpus.default_root()
pytestmark = pytest.mark.skipif(
    ROOT is None, reason='the corpus is not here: set HEAT_BREAKPOINT_CORPUS '
                         'to a checkout of openstack/heat-templates')
MASK = '******'


@pytest.fixture(scope='module')
def server():
    with fixture.local_heat('heat-breakpoint-corpus-bp-',
                            '--no-leaf-sleep') as local:
        yield local


def _osc(server, *argv):
    code, out, err = conftest.run_openstack(server, *argv)
    assert code == 0, err + out
    return out


def _template(path):
    return os.path.join(ROOT, path)


def _params(path, **given):
    template = corpus.Template(ROOT, path, None)
    values = corpus.parameters(template)
    values.update(given)
    args = []
    for key, value in sorted(values.items()):
        args += ['--parameter', '%s=%s' % (key, value)]
    return args


def _show(server, stack, resource):
    return json.loads(_osc(server, 'stack', 'breakpoint', 'show', stack,
                           resource, '-f', 'json'))


def _field(shown, name):
    """A field of ``breakpoint show -f json``, as a dict when JSON."""
    value = shown[name]
    return json.loads(value) if isinstance(value, str) and \
        value[:1] in '{[' else value


def test_a_server_held_before_shows_its_inputs_with_the_secret_masked(
        server):
    path = 'cfn/F17/WordPress_Single_Instance.yaml'
    stack = 'wp-%s' % uuid.uuid4().hex[:6]
    password = 'Sup3rS3cretPw'
    _osc(server, 'stack', 'create', stack, '-t', _template(path),
         '--breakpoint', 'WebServer', '--wait',
         *_params(path, DBPassword=password, DBRootPassword=password))
    hc = server.client()
    rsrc = hc.resources.get(stack, 'WebServer')
    assert rsrc.resource_status == 'CREATE_IN_PROGRESS'
    shown = _show(server, stack, 'WebServer')
    text = json.dumps(shown)
    assert password not in text
    inputs = _field(shown, 'inputs')
    assert inputs['UserData'] == MASK
    assert inputs['InstanceType'] == 'm1.small'
    # The image the template's mapping chose, as the cloud resolved it.
    assert inputs['ImageId']
    _osc(server, 'stack', 'breakpoint', 'continue', stack)
    utils.wait_stack(hc, stack, 'CREATE_COMPLETE')
    first = hc.resources.get(stack, 'WebServer').physical_resource_id

    # Another distribution is another image: Heat replaces the instance,
    # and --breakpoint-on-replace holds it before, saying so.
    # (A new environment: the create's breakpoint is not kept.)
    _osc(server, 'stack', 'update', stack, '-t', _template(path), '--wait',
         '--breakpoint-on-replace', 'WebServer',
         *_params(path, DBPassword=password, DBRootPassword=password,
                  LinuxDistribution='F18'))
    rsrc = hc.resources.get(stack, 'WebServer')
    assert rsrc.resource_status == 'UPDATE_IN_PROGRESS'
    assert '(replace)' in rsrc.resource_status_reason
    change = _field(_show(server, stack, 'WebServer'), 'change')
    text = json.dumps(change)
    assert 'replace' in text and 'ImageId' in text, change
    assert password not in text
    _osc(server, 'stack', 'breakpoint', 'continue', stack)
    utils.wait_stack(hc, stack, 'UPDATE_COMPLETE')
    assert hc.resources.get(stack, 'WebServer').physical_resource_id \
        != first


def test_a_port_held_after_shows_its_fixed_ips_in_its_subnet(server):
    path = 'hot/Windows/IIS_Drupal/IIS_Drupal.yaml'
    stack = 'iis-%s' % uuid.uuid4().hex[:6]
    _osc(server, 'stack', 'create', stack, '-t', _template(path),
         '--breakpoint-after', 'server_port', '--wait', *_params(path))
    hc = server.client()
    assert hc.resources.get(stack, 'server_port').resource_status == \
        'CREATE_COMPLETE'
    assert hc.resources.get(stack, 'iis_drupal').resource_status in (
        'INIT_COMPLETE', 'CREATE_IN_PROGRESS')
    attributes = _field(_show(server, stack, 'server_port'), 'attributes')
    fixed = attributes['fixed_ips']
    assert len(fixed) == 1
    subnet = [s for s in attributes['subnets']
              if s['id'] == fixed[0]['subnet_id']][0]
    assert ipaddress.ip_address(fixed[0]['ip_address']) in \
        ipaddress.ip_network(subnet['cidr'])
    _osc(server, 'stack', 'breakpoint', 'continue', stack)
    utils.wait_stack(hc, stack, 'CREATE_COMPLETE')
    # The server's addresses are its port's, with the floating IP.
    port_ip = fixed[0]['ip_address']
    port_id = hc.resources.get(stack, 'server_port').physical_resource_id
    fip = hc.resources.get(stack, 'server_floating_ip', with_attr=[
        'port_id', 'fixed_ip_address', 'floating_ip_address']).attributes
    assert (fip['port_id'], fip['fixed_ip_address']) == (port_id, port_ip)
    floating = fip['floating_ip_address']
    assert ipaddress.ip_address(floating) in ipaddress.ip_network(
        '203.0.113.0/24')
    addresses = hc.resources.get(stack, 'iis_drupal', with_attr=[
        'addresses']).attributes['addresses']
    found = {(a['addr'], a['OS-EXT-IPS:type'])
             for entries in addresses.values() for a in entries}
    # Heat stores a server's addresses when it completes: the floating
    # IP shows there if it was associated by then, and is the same.
    assert found in ({(port_ip, 'fixed')},
                     {(port_ip, 'fixed'), (floating, 'floating')}), found
    outputs = {o['output_key']: o['output_value']
               for o in hc.stacks.get(stack).outputs}
    assert outputs['drupal_url'].split() == ['URL:', 'http://%s' % floating]


def test_a_deployment_held_after_shows_its_simulated_outputs(server):
    path = 'hot/software-config/example-templates/example-script-template.yaml'
    stack = 'script-%s' % uuid.uuid4().hex[:6]
    template = corpus.Template(ROOT, path, None).doc
    deployments = [name for name, rsrc in template['resources'].items()
                   if rsrc['type'] == 'OS::Heat::SoftwareDeployment']
    target = sorted(deployments)[0]
    _osc(server, 'stack', 'create', stack, '-t', _template(path),
         '--breakpoint-after', target, '--wait', *_params(path))
    hc = server.client()
    assert hc.resources.get(stack, target).resource_status == \
        'CREATE_COMPLETE'
    attributes = _field(_show(server, stack, target), 'attributes')
    assert attributes['deploy_status_code'] == 0
    assert 'simulated' in attributes['deploy_stdout']
    _osc(server, 'stack', 'breakpoint', 'continue', stack)
    utils.wait_stack(hc, stack, 'CREATE_COMPLETE')
