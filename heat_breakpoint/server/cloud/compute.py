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
"""Simulated Nova: servers (and EC2 instances), key pairs, flavors, EIPs.

Each type is one class here: what Nova does with it, how long it takes,
what Nova says when it fails or refuses, how Heat looks one up.

A server's addresses are its ports': the ports a template gives it, or
ports Nova makes on the networks it names (on the project's only
network when it names none; Nova refuses to choose among several).
A floating IP associated with one of its ports shows in its
``addresses`` as ``floating``.
"""

from heat_breakpoint.server.cloud import models
from heat_breakpoint.server.cloud import network
from heat_breakpoint.server.cloud import paths
from heat_breakpoint.server.cloud import store as cloud_store
from heat_breakpoint.server.cloud import values

DEFAULT_NETWORK = 'private'
# What a flavor of a well-known name has: (vCPUs, RAM MiB, disk GB).
FLAVORS = {
    'm1.tiny': (1, 512, 1), 'm1.small': (1, 2048, 20),
    'm1.medium': (2, 4096, 40), 'm1.large': (4, 8192, 80),
    'm1.xlarge': (8, 16384, 160), 'ds512M': (1, 512, 5),
    'ds1G': (1, 1024, 10), 'ds2G': (2, 2048, 10), 'ds4G': (4, 4096, 20),
}
NO_VALID_HOST = ('Went to status ERROR due to "Message: No valid host was '
                 'found. There are not enough hosts available., Code: 500"')
QUOTA_EXCEEDED = ('Forbidden', 'Quota exceeded for instances: Requested 1, '
                  'but already used 10 of 10 instances (HTTP 403)')


def _ports_for(sim, requests, server_id):
    """The server's port IDs, making the ones Nova would make."""
    store = sim.store
    ports = []
    for index, item in enumerate(requests):
        port_id = item.get('port')
        if port_id:
            store.update(port_id, device_id=server_id,
                         device_owner='compute:nova', status='ACTIVE')
            ports.append(port_id)
            continue
        net = item.get('network') or item.get('uuid')
        subnet = item.get('subnet')
        if not net and subnet:
            net = (store.get(subnet) or sim.find('subnet', subnet))[
                'network_id']
        if not net and item.get('allocate_network') == 'none':
            continue
        net = net or _default_network(sim)
        if net is None:
            continue
        requested = []
        if subnet or item.get('fixed_ip'):
            requested = [{'subnet': subnet,
                          'ip_address': item.get('fixed_ip')}]
        port = network.new_port(sim, net, requested, device_id=server_id,
                                seed_suffix='/port%d' % index,
                                extra={'internal': True})
        ports.append(port.id)
    return ports


def network_ambiguous():
    """Nova's refusal to choose a network for a server naming none."""
    from novaclient import exceptions
    return exceptions.Conflict(409, message=(
        'Multiple possible networks found, use a Network ID to be more '
        'specific.'))


def _available_networks(sim) -> list:
    """The networks Nova may put a server on, as it lists them.

    Those of the server's project and the shared ones, but the external
    ones: the project's networks made by its stacks, and the cloud's
    (the --cloud file's; without one, ``private`` alone, assumed: the
    names other look-ups assume belong to no project).
    """
    found = []
    for net in sim.store.all('network'):
        if net.get('router:external'):
            continue
        if net.origin == cloud_store.CREATED and \
                net.stack_id == sim.rsrc.stack.id:
            # Made by the server's own stack, which may still be making
            # it: whether Nova would see it is a race of that boot, so a
            # server naming no network means one there before its stack.
            continue
        if net.origin == cloud_store.CREATED:
            if net.project == sim.project or net.get('shared'):
                found.append(net.id)
        elif sim.inventory.strict or net.name == DEFAULT_NETWORK:
            found.append(net.id)
    if not found and not sim.inventory.strict:
        found.append(sim.find('network', DEFAULT_NETWORK).id)
    return found


def _default_network(sim):
    """The network Nova picks for a server that names none.

    The project's only network; with several, Nova refuses to choose;
    with none, the server has no port, as Nova leaves it.
    """
    found = _available_networks(sim)
    if len(found) > 1:
        raise network_ambiguous()
    return found[0] if found else None


def _port_addresses(store, port_ids):
    """(port, network, [(address, type)]) of each of a server's ports."""
    for port_id in port_ids:
        port = store.get(port_id)
        if port is None:
            continue
        found = [(f['ip_address'], 'fixed')
                 for f in port.get('fixed_ips') or []]
        found += [(f['floating_ip_address'], 'floating')
                  for f in store.all('floatingip', port_id=port.id)]
        yield port, store.get(port['network_id']), found


def addresses(store, port_ids) -> dict:
    """Nova's ``addresses``: by network name, fixed then floating."""
    result = {}
    for port, net, found in _port_addresses(store, port_ids):
        label = net.name if net is not None and net.name else \
            port['network_id']
        result.setdefault(label, []).extend(
            {'addr': address, 'version': 6 if ':' in address else 4,
             'OS-EXT-IPS-MAC:mac_addr': port['mac_address'],
             'OS-EXT-IPS:type': kind,
             'port': port.id if kind == 'fixed' else None}
            for address, kind in found)
    return result


def networks(store, port_ids) -> dict:
    """Heat's ``networks`` attribute: addresses by network name and ID."""
    result = {}
    for port, net, found in _port_addresses(store, port_ids):
        for key in filter(None, (port['network_id'],
                                 net.name if net is not None else None)):
            result.setdefault(key, []).extend(a for a, _kind in found)
    return result


def first_address(store, port_ids, floating=False):
    for entries in addresses(store, port_ids).values():
        for entry in entries:
            if (entry['OS-EXT-IPS:type'] == 'floating') == floating:
                return entry['addr']
    return None


def boot_script(sim, user_data) -> str:
    """The text the server runs at boot (a software config's, if named)."""
    if not user_data:
        return ''
    if values.looks_like_uuid(user_data):
        try:
            config = sim.rsrc.rpc_client().show_software_config(
                sim.rsrc.context, user_data)
            return str(config.get('config') or '')
        except Exception:
            return user_data
    return str(user_data)


class _ServerBase(models.SimulatedType):
    kind = 'server'
    user_data_property = 'user_data'

    def after_create(self, sim, obj):
        script = boot_script(sim, sim.props.get(self.user_data_property))
        where = paths.resource_path(sim.rsrc.context, sim.rsrc.stack.id,
                                    sim.name) \
            if sim.cloud.faults.rules else None
        sim.cloud.agents.boot(obj.name or obj.id, script, where,
                              sim.type_name)

    def _network_requests(self, sim) -> list:
        raise NotImplementedError

    def create(self, sim):
        fields = super().create(sim)
        server_id = values.object_id('server', '%s#%d' % (
            sim.seed, sim.store.generation(sim.rsrc.stack.id, sim.seed)))
        fields['id'] = server_id
        fields['ports'] = _ports_for(sim, self._network_requests(sim),
                                     server_id)
        fields.update({'status': 'ACTIVE', 'power_state': 1,
                       'OS-EXT-SRV-ATTR:instance_name': 'instance-%08x' % (
                           int(values.hex_token(server_id, 6), 16)),
                       'tenant_id': sim.project})
        return fields

    def delete(self, sim, obj):
        for port_id in obj.get('ports') or []:
            port = sim.store.get(port_id)
            if port is None:
                continue
            if port.get('internal'):
                sim.store.delete(port_id)
            else:
                sim.store.update(port_id, device_id='', device_owner='',
                                 status='DOWN')
        for attachment in sim.store.all('volume_attachment',
                                        server_id=obj.id):
            sim.store.delete(attachment.id)


class Server(_ServerBase):
    type_name = 'OS::Nova::Server'
    build_times = {'CREATE': (20.0, 40.0), 'DELETE': (5.0, 10.0),
                   'UPDATE': (10.0, 30.0)}
    failures = {
        'CREATE': NO_VALID_HOST,
        'UPDATE': 'Resizing to m1.small failed, status "ERROR"',
        'DELETE': 'Went to status ERROR due to "Message: Failed to delete '
                  'instance, Code: 500"'}
    refusals = {'CREATE': QUOTA_EXCEEDED}
    lookups = {'get_server': False, 'fetch_server': False}
    section = 'servers'

    def _network_requests(self, sim):
        requests = sim.props.get('networks')
        return requests if requests else [{}]

    def create(self, sim):
        fields = super().create(sim)
        flavor = sim.store.get(sim.props.get('flavor') or '')
        if flavor is not None:
            fields['flavor'] = {'id': flavor.id, 'original_name': flavor.name,
                                'vcpus': flavor.get('vcpus'),
                                'ram': flavor.get('ram'),
                                'disk': flavor.get('disk')}
        if sim.props.get('image'):
            fields['image'] = {'id': sim.props['image']}
        return fields

    def attribute(self, sim, obj, name):
        ports = obj.get('ports') or []
        if name == 'addresses':
            return addresses(sim.store, ports)
        if name == 'networks':
            return networks(sim.store, ports)
        if name == 'first_address':
            return first_address(sim.store, ports) or ''
        if name in ('accessIPv4', 'accessIPv6'):
            # Nova leaves them empty unless the user sets them.
            return obj.get(name) or ''
        if name == 'instance_name':
            return obj.get('OS-EXT-SRV-ATTR:instance_name')
        if name == 'console_urls':
            return {'novnc': 'http://console.simulated.invalid:6080/'
                             'vnc_auto.html?token=%s' %
                             values.hex_token(obj.id)}
        if name == 'os_collect_config':
            return (sim.rsrc.metadata_get() or {}).get(
                'os-collect-config', {})
        if name == 'tags':
            return list(obj.get('tags') or [])
        return models.NOTHING

    def update(self, sim, obj, prop_diff):
        changes = super().update(sim, obj, prop_diff)
        if 'networks' in prop_diff:
            self.delete(sim, obj)
            changes['ports'] = _ports_for(
                sim, prop_diff['networks'] or [{}], obj.id)
        return changes


class Instance(_ServerBase):
    type_name = 'AWS::EC2::Instance'
    build_times = {'CREATE': (20.0, 40.0), 'DELETE': (5.0, 10.0)}
    failures = {'CREATE': NO_VALID_HOST}
    refusals = {'CREATE': QUOTA_EXCEEDED}
    user_data_property = 'UserData'

    def _network_requests(self, sim):
        props = sim.props
        interfaces = props.get('NetworkInterfaces') or []
        requests = []
        for item in interfaces:
            port = item.get('NetworkInterfaceId') if isinstance(
                item, dict) else item
            requests.append({'port': port})
        if not requests and props.get('SubnetId'):
            requests.append({'subnet': props['SubnetId'],
                             'fixed_ip': props.get('PrivateIpAddress')})
        return requests or [{}]

    def attribute(self, sim, obj, name):
        ports = obj.get('ports') or []
        if name == 'AvailabilityZone':
            return sim.props.get('AvailabilityZone') or 'nova'
        if name in ('PrivateIp', 'PrivateDnsName'):
            return first_address(sim.store, ports) or ''
        if name in ('PublicIp', 'PublicDnsName'):
            return (first_address(sim.store, ports, floating=True) or
                    first_address(sim.store, ports) or '')
        return models.NOTHING


class KeyPair(models.SimulatedType):
    type_name = 'OS::Nova::KeyPair'
    kind = 'keypair'
    entity = 'Key'
    lookups = {'get_keypair': False}
    section = 'keypairs'

    @classmethod
    def inventory_fields(cls, name):
        return {'public_key': 'ssh-ed25519 AAAA%s %s' % (
            values.hex_token(name or '', 40), name),
            'fingerprint': ':'.join(
                values.hex_token(name or '', 32)[i:i + 2]
                for i in range(0, 32, 2))}

    def create(self, sim):
        fields = super().create(sim)
        name = sim.props.get('name')
        key = sim.props.get('public_key') or 'ssh-rsa AAAAB3Nza%s %s' % (
            values.hex_token(sim.seed, 60), name)
        fields.update(public_key=key, id=name)
        if not sim.props.get('public_key'):
            fields['private_key'] = (
                '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n'
                '-----END OPENSSH PRIVATE KEY-----\n'
                % values.hex_token(sim.seed + 'private', 64))
        return fields

    def attribute(self, sim, obj, name):
        if name == 'private_key':
            return obj.get('private_key') or ''
        return models.NOTHING


class Flavor(models.SimulatedType):
    type_name = 'OS::Nova::Flavor'
    kind = 'flavor'
    lookups = {'find_flavor_by_name_or_id': True, 'get_flavor': False}
    section = 'flavors'

    @classmethod
    def inventory_fields(cls, name):
        vcpus, ram, disk = FLAVORS.get(name, (1, 2048, 20))
        return {'vcpus': vcpus, 'ram': ram, 'disk': disk,
                'ephemeral': 0, 'swap': 0, 'is_public': True}


class Host(models.SimulatedType):
    """A hypervisor, as Heat's Nova plugin finds one."""

    kind = 'host'
    entity = 'Hypervisor'
    section = 'hosts'


class AvailabilityZone(models.SimulatedType):
    kind = 'availability_zone'
    section = 'availability_zones'


class ElasticIp(models.SimulatedType):
    type_name = 'AWS::EC2::EIP'
    kind = 'floatingip'

    def create(self, sim):
        net = sim.find('network', 'public')
        subnet_id, address = network.floating_address(sim, net)
        fields = {'floating_network_id': net.id,
                  'floating_subnet_id': subnet_id,
                  'floating_ip_address': address, 'port_id': None,
                  'status': 'DOWN'}
        instance = sim.store.get(sim.props.get('InstanceId') or '')
        if instance is not None and instance.get('ports'):
            fields.update(port_id=instance['ports'][0], status='ACTIVE')
        return fields

    def reference(self, sim, obj):
        return obj.get('floating_ip_address')

    def attribute(self, sim, obj, name):
        if name == 'AllocationId':
            return obj.id
        return models.NOTHING


class ElasticIpAssociation(models.SimulatedType):
    type_name = 'AWS::EC2::EIPAssociation'
    kind = 'eip_association'

    def create(self, sim):
        props = sim.props
        fip = None
        if props.get('EIP'):
            fip = next(iter(sim.store.all(
                'floatingip', floating_ip_address=props['EIP'])), None)
        elif props.get('AllocationId'):
            fip = sim.store.get(props['AllocationId'])
        instance = sim.store.get(props.get('InstanceId') or '')
        port_id = props.get('NetworkInterfaceId') or (
            (instance.get('ports') or [None])[0] if instance else None)
        if fip is not None:
            sim.store.update(fip.id, port_id=port_id, status='ACTIVE')
        return {'floatingip_id': fip.id if fip else None,
                'port_id': port_id}

    def reference(self, sim, obj):
        return sim.rsrc.physical_resource_name_or_FnGetRefId()

    def delete(self, sim, obj):
        fip = sim.store.get(obj.get('floatingip_id') or '')
        if fip is not None:
            sim.store.update(fip.id, port_id=None, status='DOWN')
