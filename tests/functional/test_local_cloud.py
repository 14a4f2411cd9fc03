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
"""The local server's simulated cloud, as a template author meets it.

Values consistent with each other and the same on a re-run; the
operations the debugger needs (check, suspend, resume, snapshot,
restore, abandon, adopt); ``--cloud`` lookups that fail as that cloud's
Heat would; what the start banner says; ``--no-simulate`` naming the
missing service in one line instead of an Internal Error.
"""

import ipaddress
import os
import uuid

import pytest
import yaml

from heat_breakpoint.server import fixture
from tests.functional import conftest
from tests.functional import utils

WEB = utils.example('web_server.yaml')

NETWORKED = {
    'heat_template_version': '2021-04-16',
    'resources': {
        'net': {'type': 'OS::Neutron::Net'},
        'subnet': {'type': 'OS::Neutron::Subnet', 'properties': {
            'network': {'get_resource': 'net'}, 'cidr': '10.7.0.0/24'}},
        'port': {'type': 'OS::Neutron::Port', 'properties': {
            'network': {'get_resource': 'net'},
            'fixed_ips': [{'subnet': {'get_resource': 'subnet'}}]}},
        'fip': {'type': 'OS::Neutron::FloatingIP', 'properties': {
            'floating_network': 'public',
            'port_id': {'get_resource': 'port'}}},
        # The server's addresses are stored when it completes: after the
        # floating IP's association, as a template must order it to see it.
        'web': {'type': 'OS::Nova::Server', 'depends_on': ['fip'],
                'properties': {
                    'image': 'cirros', 'flavor': 'm1.small',
                    'networks': [{'port': {'get_resource': 'port'}}]}},
        'data': {'type': 'OS::Cinder::Volume', 'properties': {'size': 2}},
        'attach': {'type': 'OS::Cinder::VolumeAttachment', 'properties': {
            'instance_uuid': {'get_resource': 'web'},
            'volume_id': {'get_resource': 'data'}}},
    },
    'outputs': {
        'port_ip': {'value': {'get_attr': ['port', 'fixed_ips', 0,
                                           'ip_address']}},
        'cidr': {'value': {'get_attr': ['subnet', 'cidr']}},
        'addresses': {'value': {'get_attr': ['web', 'addresses']}},
        'fip': {'value': {'get_attr': ['fip', 'floating_ip_address']}},
        'volume': {'value': {'get_attr': ['data', 'attachments_list']}},
        'status': {'value': {'get_attr': ['data', 'status']}},
        'server_id': {'value': {'get_resource': 'web'}},
    }}


def _server(*args):
    return fixture.local_heat('heat-breakpoint-cloud-', *args)


@pytest.fixture(scope='module')
def server():
    with _server('--no-leaf-sleep') as local:
        yield local


def _outputs(hc, stack):
    return {o['output_key']: o['output_value']
            for o in hc.stacks.get(stack).outputs}


def _create(hc, template, name=None):
    name = name or 'cloud-%s' % uuid.uuid4().hex[:6]
    hc.stacks.create(stack_name=name, template=template)
    utils.wait_stack(hc, name, 'CREATE_COMPLETE')
    return name


def test_values_are_consistent_and_the_same_on_a_re_run(server):
    hc = server.client()
    name = _create(hc, NETWORKED)
    out = _outputs(hc, name)
    assert ipaddress.ip_address(out['port_ip']) in ipaddress.ip_network(
        out['cidr'])
    net_addresses = [a for entries in out['addresses'].values()
                     for a in entries]
    assert {(a['addr'], a['OS-EXT-IPS:type']) for a in net_addresses} == {
        (out['port_ip'], 'fixed'), (out['fip'], 'floating')}
    assert ipaddress.ip_address(out['fip']) in ipaddress.ip_network(
        '203.0.113.0/24')
    assert out['status'] == 'in-use'
    assert [(v['server_id'], v['device']) for v in out['volume']] == [
        (out['server_id'], '/dev/vdb')]
    ids = {r.resource_name: r.physical_resource_id
           for r in hc.resources.list(name)}
    hc.stacks.delete(name)
    utils.wait_for(lambda: name not in [s.stack_name
                                        for s in hc.stacks.list()],
                   60, what='the delete')
    _create(hc, NETWORKED, name)
    assert {r.resource_name: r.physical_resource_id
            for r in hc.resources.list(name)} == ids
    assert _outputs(hc, name)['port_ip'] == out['port_ip']


def test_the_operations_a_debugger_needs(server):
    hc = server.client()
    name = _create(hc, NETWORKED)
    for action, status in (('check', 'CHECK_COMPLETE'),
                           ('suspend', 'SUSPEND_COMPLETE'),
                           ('resume', 'RESUME_COMPLETE')):
        getattr(hc.actions, action)(name)
        utils.wait_stack(hc, name, status)
    snapshot = hc.stacks.snapshot(name, 'snap')
    utils.wait_for(lambda: hc.stacks.snapshot_show(
        name, snapshot['id'])['snapshot']['status'] == 'COMPLETE', 60,
        what='the snapshot')
    hc.stacks.restore(name, snapshot['id'])
    utils.wait_stack(hc, name, 'RESTORE_COMPLETE')
    abandoned = hc.stacks.abandon(name)
    adopted = 'adopted-%s' % uuid.uuid4().hex[:6]
    hc.stacks.create(stack_name=adopted, template=NETWORKED,
                     adopt_stack_data=yaml.safe_dump(abandoned))
    utils.wait_stack(hc, adopted, 'ADOPT_COMPLETE')
    assert {r.resource_name: r.physical_resource_id
            for r in hc.resources.list(adopted)} == {
        name: data['resource_id']
        for name, data in abandoned['resources'].items()}


def test_a_cloud_file_makes_lookups_strict(tmp_path):
    cloud = tmp_path / 'cloud.yaml'
    cloud.write_text(yaml.safe_dump({
        'flavors': [{'name': 'm1.small', 'vcpus': 1, 'ram': 2048,
                     'disk': 20}],
        'images': ['cirros'], 'networks': [{'name': 'public',
                                            'external': True}]}))
    with _server('--cloud', str(cloud)) as local:
        assert 'lookups accept names from the --cloud file' in \
            local.read_output()
        hc = local.client()
        template = {'heat_template_version': '2021-04-16', 'resources': {
            'web': {'type': 'OS::Nova::Server', 'properties': {
                'image': 'ubuntu', 'flavor': 'm1.small'}}}}
        code, out, err = conftest.run_openstack(
            local, 'stack', 'create', 'strict', '-t',
            _write(tmp_path, template))
        assert code == 1
        assert 'The Image (ubuntu) could not be found.' in err
        assert 'strict' not in [s.stack_name for s in hc.stacks.list()]
        template['resources']['web']['properties']['image'] = 'cirros'
        _create(hc, template)


def _write(folder, template):
    path = os.path.join(str(folder), 'template.yaml')
    with open(path, 'w') as out:
        yaml.safe_dump(template, out)
    return path


def test_the_banner_says_what_is_simulated(server):
    output = server.read_output()
    assert 'simulated cloud: ' in output
    assert 'nova' in output and 'neutron' in output
    assert 'lookups accept any name (each one assumed is reported)' in \
        output


def test_every_assumed_name_is_in_the_stack_s_events(server):
    """A notice longer than Heat's 255-character reason loses no name."""
    hc = server.client()
    networks = ['assumed-network-with-a-long-name-%02d' % i
                for i in range(12)]
    name = _create(hc, {
        'heat_template_version': '2018-08-31', 'resources': {
            'port%d' % i: {'type': 'OS::Neutron::Port',
                           'properties': {'network': network}}
            for i, network in enumerate(networks)}})
    notices = [e.resource_status_reason
               for e in hc.events.list(name, sort_dir='asc')
               if e.resource_name == name and
               e.resource_status_reason.startswith('Simulated cloud')]
    assert len(notices) > 1
    assert all(len(text) <= 255 for text in notices)
    assert notices[0] == 'Simulated cloud: 12 OS::Neutron::Port simulated'
    said = ' '.join(notices)
    assert [n for n in networks if 'network %s' % n not in said] == []


def test_without_simulation_a_missing_service_is_one_line(tmp_path):
    with _server('--no-simulate') as local:
        assert '--no-simulate' in local.read_output()
        code, out, err = conftest.run_openstack(
            local, 'stack', 'create', 'nosim', '-t', WEB)
        assert code == 1
        lines = [line for line in err.splitlines()
                 if line and not line.startswith('Could not load')]
        assert len(lines) == 1, err
        assert 'Internal Error' not in err
        assert 'is not available' in lines[0] or \
            'not in service catalog' in lines[0], lines


SECRET = 'Hidden-Pa55word'
MASKED = {
    'heat_template_version': '2021-04-16',
    'parameters': {'admin_pass': {'type': 'string', 'hidden': True}},
    'resources': {
        # Named: the project has other stacks' networks.
        'web': {'type': 'OS::Nova::Server', 'properties': {
            'image': 'cirros', 'flavor': 'm1.small',
            'networks': [{'network': 'private'}],
            'admin_pass': {'get_param': 'admin_pass'},
            'user_data_format': 'SOFTWARE_CONFIG'}},
        'config': {'type': 'OS::Heat::SoftwareConfig', 'properties': {
            'group': 'script', 'inputs': [{'name': 'password'}],
            'outputs': [{'name': 'result'}],
            'config': '#!/bin/sh\necho "$password"\n'}},
        'deploy': {'type': 'OS::Heat::SoftwareDeployment', 'properties': {
            'config': {'get_resource': 'config'},
            'server': {'get_resource': 'web'},
            'input_values': {'password': {'get_param': 'admin_pass'}}}},
    }}


def test_hidden_values_stay_masked_through_simulated_attributes(
        server, tmp_path):
    import json
    stack = 'masked-%s' % uuid.uuid4().hex[:6]
    code, _, err = conftest.run_openstack(
        server, 'stack', 'create', stack, '-t', _write(tmp_path, MASKED),
        '--parameter', 'admin_pass=%s' % SECRET,
        '--breakpoint-after', 'web', '--breakpoint-after', 'deploy',
        '--wait')
    assert code == 0, err
    hc = server.client()
    for held in ('web', 'deploy'):
        code, out, err = conftest.run_openstack(
            server, 'stack', 'breakpoint', 'show', stack, held, '-f',
            'json')
        assert code == 0, err
        shown = json.loads(out)
        assert shown['state'] == 'held' and shown['attributes'], shown
        assert SECRET not in out, held
        code, _, err = conftest.run_openstack(
            server, 'stack', 'breakpoint', 'clear', stack, held)
        assert code == 0, err
        if held == 'web':
            utils.wait_resource(hc, stack, 'deploy', 'CREATE_COMPLETE')
    # What the agent reported is shown as reported (a secret written in
    # it is masked where it appears: tests/functional/test_faults.py);
    # the deployment's other values, which may carry its input, stay
    # masked whole.
    assert shown['attributes']['deploy_status_code'] == 0
    assert shown['attributes']['deploy_stdout'].startswith('simulated: ')
    masked = [name for name, value in shown['attributes'].items()
              if value == '******']
    assert masked == [name for name in shown['attributes']
                      if not name.startswith('deploy_')], shown
    conftest.run_openstack(server, 'stack', 'breakpoint', 'continue',
                           stack)
    utils.wait_stack(hc, stack, 'CREATE_COMPLETE')


# Each test below makes its stacks in a project of its own: which networks
# a server without ``networks`` may be put on is the project's business.
def _project(server, label):
    """A client of a new project (noauth takes it from X-Auth-Project)."""
    from heatclient import client as heat_client
    from keystoneauth1 import noauth
    from keystoneauth1 import session
    project = '%s-%s' % (label, uuid.uuid4().hex[:6])
    sess = session.Session(auth=noauth.NoAuth(),
                           additional_headers={'X-Auth-Project': project})
    return heat_client.Client('1', session=sess, endpoint_override=(
        '%s/v1/%s' % (server.url, project)))


def _hot(resources, outputs=None):
    return {'heat_template_version': '2021-04-16', 'resources': resources,
            'outputs': {k: {'value': v} for k, v in (outputs or {}).items()}}


def test_an_external_resource_is_the_object_it_names(server):
    hc = _project(server, 'external')
    owner = _create(hc, _hot({
        'net': {'type': 'OS::Neutron::Net', 'properties': {
            'name': 'theirs'}}}, {'id': {'get_resource': 'net'}}))
    net_id = _outputs(hc, owner)['id']
    assumed = str(uuid.uuid4())
    name = _create(hc, _hot({
        'net': {'type': 'OS::Neutron::Net', 'external_id': net_id},
        'other': {'type': 'OS::Neutron::Net', 'external_id': assumed}},
        {'name': {'get_attr': ['net', 'name']},
         'ref': {'get_resource': 'net'},
         'other': {'get_resource': 'other'}}))
    out = _outputs(hc, name)
    assert (out['name'], out['ref'], out['other']) == (
        'theirs', net_id, assumed)
    # Heat leaves an external resource in the cloud when its stack goes.
    hc.stacks.delete(name)
    utils.wait_for(lambda: name not in [s.stack_name
                                        for s in hc.stacks.list()],
                   60, what='the delete')
    assert _outputs(hc, owner)['id'] == net_id
    assert [r.resource_status for r in hc.resources.list(owner)] == [
        'CREATE_COMPLETE']


def test_a_subnets_pools_exclude_its_gateway(server):
    hc = _project(server, 'pools')
    subnet = {'type': 'OS::Neutron::Subnet', 'properties': {
        'network': {'get_resource': 'net'}, 'cidr': '10.8.0.0/24'}}
    name = _create(hc, _hot({
        'net': {'type': 'OS::Neutron::Net'},
        'subnet': subnet,
        'middle': {'type': 'OS::Neutron::Subnet', 'properties': dict(
            subnet['properties'], cidr='10.8.1.0/24',
            gateway_ip='10.8.1.100')},
        'none': {'type': 'OS::Neutron::Subnet', 'properties': dict(
            subnet['properties'], cidr='10.8.2.0/24', gateway_ip=None)},
        'port': {'type': 'OS::Neutron::Port', 'properties': {
            'network': {'get_resource': 'net'},
            'fixed_ips': [{'subnet': {'get_resource': 'subnet'}}]}}},
        {'pools': {'get_attr': ['subnet', 'allocation_pools']},
         'gateway': {'get_attr': ['subnet', 'gateway_ip']},
         'middle': {'get_attr': ['middle', 'allocation_pools']},
         'none': {'get_attr': ['none', 'allocation_pools']},
         'port_ip': {'get_attr': ['port', 'fixed_ips', 0, 'ip_address']}}))
    out = _outputs(hc, name)
    assert out['gateway'] == '10.8.0.1'
    assert out['pools'] == [{'start': '10.8.0.2', 'end': '10.8.0.254'}]
    assert out['middle'] == [{'start': '10.8.1.1', 'end': '10.8.1.99'},
                             {'start': '10.8.1.101', 'end': '10.8.1.254'}]
    assert out['none'] == [{'start': '10.8.2.1', 'end': '10.8.2.254'}]
    assert out['port_ip'] == '10.8.0.2'


ROUTED = {
    'net': {'type': 'OS::Neutron::Net'},
    'subnet': {'type': 'OS::Neutron::Subnet', 'properties': {
        'network': {'get_resource': 'net'}, 'cidr': '10.6.0.0/24'}},
    'router': {'type': 'OS::Neutron::Router', 'properties': {
        'external_gateway_info': {'network': 'public'}}},
    'interface': {'type': 'OS::Neutron::RouterInterface', 'properties': {
        'router': {'get_resource': 'router'},
        'subnet': {'get_resource': 'subnet'}}},
    'port': {'type': 'OS::Neutron::Port', 'properties': {
        'network': {'get_resource': 'net'},
        'fixed_ips': [{'subnet': {'get_resource': 'subnet'}}]}},
    'other_port': {'type': 'OS::Neutron::Port', 'properties': {
        'network': {'get_resource': 'net'},
        'fixed_ips': [{'subnet': {'get_resource': 'subnet'}}]}},
    'fip': {'type': 'OS::Neutron::FloatingIP', 'depends_on': ['interface'],
            'properties': {'floating_network': 'public',
                           'port_id': {'get_resource': 'port'}}},
    'later': {'type': 'OS::Neutron::FloatingIP',
              'properties': {'floating_network': 'public'}},
    'association': {'type': 'OS::Neutron::FloatingIPAssociation',
                    'depends_on': ['interface'], 'properties': {
                        'floatingip_id': {'get_resource': 'later'},
                        'port_id': {'get_resource': 'other_port'}}},
    'web': {'type': 'OS::Nova::Server', 'properties': {
        'image': 'cirros', 'flavor': 'm1.small',
        'networks': [{'port': {'get_resource': 'port'}}]}},
}


def test_a_floating_ip_is_reached_through_its_router(server):
    hc = _project(server, 'routed')
    name = _create(hc, _hot(ROUTED, {
        'router': {'get_resource': 'router'},
        'fip': {'get_attr': ['fip', 'router_id']},
        'later': {'get_attr': ['later', 'show', 'router_id']}}))
    out = _outputs(hc, name)
    assert out['router'] and out['fip'] == out['router']
    assert out['later'] == out['router']


def test_a_servers_access_addresses_are_empty_unless_set(server):
    hc = _project(server, 'access')
    name = _create(hc, _hot(ROUTED, {
        'v4': {'get_attr': ['web', 'accessIPv4']},
        'v6': {'get_attr': ['web', 'accessIPv6']},
        'first': {'get_attr': ['web', 'first_address']}}))
    out = _outputs(hc, name)
    assert out['first'].startswith('10.6.0.')
    assert (out['v4'], out['v6']) == ('', '')


LONE = {'web': {'type': 'OS::Nova::Server', 'properties': {
    'image': 'cirros', 'flavor': 'm1.small'}}}


def test_a_server_naming_no_network_is_refused_when_several_fit(server):
    hc = _project(server, 'lone')
    # The project's only network: the cloud's own (private).
    name = _create(hc, _hot(LONE, {
        'networks': {'get_attr': ['web', 'networks']}}))
    assert sorted(k for k in _outputs(hc, name)['networks']
                  if not values_like_id(k)) == ['private']
    # Another stack of the project makes a network: two fit, and Nova
    # refuses to choose.
    _create(hc, _hot({'net': {'type': 'OS::Neutron::Net'},
                      'subnet': {'type': 'OS::Neutron::Subnet',
                                 'properties': {
                                     'network': {'get_resource': 'net'},
                                     'cidr': '10.5.0.0/24'}}}))
    refused = 'lone-%s' % uuid.uuid4().hex[:6]
    hc.stacks.create(stack_name=refused, template=_hot(LONE))
    utils.wait_stack(hc, refused, 'CREATE_FAILED')
    assert 'Multiple possible networks found, use a Network ID to be ' \
        'more specific.' in hc.stacks.get(refused).stack_status_reason
    # Another project's networks are not this project's.
    _create(_project(server, 'lone'), _hot(LONE))


def values_like_id(text):
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def test_a_deployments_output_names_its_configs_group(server):
    hc = _project(server, 'group')
    template = dict(MASKED, parameters={})
    template['resources'] = dict(MASKED['resources'])
    template['resources']['deploy'] = {
        'type': 'OS::Heat::SoftwareDeployment', 'properties': {
            'config': {'get_resource': 'config'},
            'server': {'get_resource': 'web'}}}
    template['resources']['web'] = {
        'type': 'OS::Nova::Server', 'properties': {
            'image': 'cirros', 'flavor': 'm1.small',
            'user_data_format': 'SOFTWARE_CONFIG'}}
    template['outputs'] = {'stdout': {'value': {
        'get_attr': ['deploy', 'deploy_stdout']}}}
    name = _create(hc, template)
    stdout = _outputs(hc, name)['stdout']
    assert stdout.startswith('simulated: script config '), stdout
