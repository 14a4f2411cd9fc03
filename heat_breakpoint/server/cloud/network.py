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
"""Simulated Neutron: networks, subnets, ports, routers, floating IPs.

Addresses are handed out as Neutron's DHCP would: the lowest free address
of the subnet's allocation pools, so a port's fixed IP is inside its
subnet's CIDR, a floating IP inside the external network's, and a second
run of the same stack gets the same addresses. Each type is one class
here (an EC2 type, a class of its own on the same behaviour).
"""

import hashlib
import ipaddress

from heat_breakpoint.server.cloud import models
from heat_breakpoint.server.cloud import values

# Names an assumed network is external by (the cloud's public network).
EXTERNAL_NAMES = ('public', 'ext-net', 'external', 'ext_net', 'floating',
                  'external_network', 'public_net', 'provider')
PORT_IP_TAKEN = 'IP address 10.0.0.5 already allocated in subnet ' \
    'private-subnet'


def subnets_of(store, network_id: str) -> list:
    return store.all('subnet', network_id=network_id)


def taken_addresses(store, subnet_id: str) -> set:
    taken = set()
    for port in store.all('port'):
        for fixed in port.get('fixed_ips') or []:
            if fixed.get('subnet_id') == subnet_id:
                taken.add(fixed.get('ip_address'))
    for fip in store.all('floatingip', floating_subnet_id=subnet_id):
        taken.add(fip.get('floating_ip_address'))
    subnet = store.get(subnet_id)
    if subnet is not None and subnet.get('gateway_ip'):
        taken.add(subnet['gateway_ip'])
    return taken


def allocate(store, subnet) -> str:
    return values.first_free(subnet['cidr'], subnet.get('allocation_pools'),
                             taken_addresses(store, subnet.id))


def fixed_ips_for(sim, network_id, requested=None) -> list:
    """The port's addresses: those asked for, else one per IPv4 subnet."""
    store = sim.store
    fixed = []
    for item in requested or []:
        subnet_id = item.get('subnet') or item.get('subnet_id')
        address = item.get('ip_address')
        if subnet_id is None and address is not None:
            subnet_id = next((s.id for s in subnets_of(store, network_id)),
                             None)
        subnet = store.get(subnet_id) if subnet_id else None
        if subnet is None:
            continue
        fixed.append({'subnet_id': subnet.id,
                      'ip_address': address or allocate(store, subnet)})
    if requested:
        return fixed
    for subnet in subnets_of(store, network_id)[:1]:
        fixed.append({'subnet_id': subnet.id,
                      'ip_address': allocate(store, subnet)})
    return fixed


def port_fields(sim, network_id, requested_ips=None, name='',
                device_id='', seed_suffix='', extra=None) -> dict:
    """A port on a network, with its addresses, as Neutron shows it."""
    network = sim.store.get(network_id) or sim.find('network', network_id)
    fields = {
        'network_id': network.id, 'name': name,
        'mac_address': values.mac_address(sim.seed + seed_suffix),
        'fixed_ips': fixed_ips_for(sim, network.id, requested_ips),
        'device_id': device_id,
        'device_owner': 'compute:nova' if device_id else '',
        'status': 'ACTIVE' if device_id else 'DOWN',
        'admin_state_up': True, 'security_groups': [],
        'allowed_address_pairs': [], 'port_security_enabled': True,
        'tenant_id': sim.project,
    }
    fields.update(extra or {})
    return fields


def new_port(sim, network_id, requested_ips=None, name='', device_id='',
             seed_suffix='', extra=None):
    """A port made on the side (a server's, a router's gateway)."""
    fields = port_fields(sim, network_id, requested_ips, name, device_id,
                         seed_suffix, extra)
    return sim.add('port', fields, name, seed_suffix=seed_suffix)


class _Network(models.SimulatedType):
    kind = 'network'

    def create(self, sim):
        fields = super().create(sim)
        fields.update({'mtu': 1450, 'admin_state_up': fields.get(
            'admin_state_up', True), 'tenant_id': sim.project,
            'router:external': bool(fields.get('router_external', False)),
            'port_security_enabled': fields.get('port_security_enabled',
                                                True)})
        return fields

    def attribute(self, sim, obj, name):
        if name == 'subnets':
            return [s.id for s in subnets_of(sim.store, obj.id)]
        if name == 'segments':
            return [{'network_type': 'vxlan', 'segmentation_id':
                     int(values.hex_token(obj.id, 4), 16) % 4000 + 1}]
        if name == 'l2_adjacency':
            return True
        return models.NOTHING


class Net(_Network):
    type_name = 'OS::Neutron::Net'
    section = 'networks'

    @classmethod
    def inventory_fields(cls, name):
        external = (name or '').lower() in EXTERNAL_NAMES
        return {'router:external': external, 'admin_state_up': True,
                'status': 'ACTIVE', 'mtu': 1450, 'shared': external}

    @classmethod
    def keep(cls, store, kind, object_id, name, origin, data):
        # A network of the cloud has a subnet, so that a port on it has
        # an address: the file's ``cidr``, else one from its name.
        external = bool(data.pop('external', data['router:external']))
        data['router:external'] = external
        cidr = data.pop('cidr', None) or _cidr_for(name or '', external)
        store.add(kind, object_id, name, origin, data)
        net = ipaddress.ip_network(cidr, strict=False)
        subnet_name = '%s-subnet' % name
        subnet_id = values.object_id('subnet', 'cloud:%s' % subnet_name)
        store.add('subnet', subnet_id, subnet_name, origin, {
            'id': subnet_id, 'name': subnet_name,
            'network_id': object_id, 'cidr': str(net),
            'ip_version': net.version,
            'gateway_ip': values.nth_address(cidr, 1),
            'allocation_pools': values.pools_of(
                cidr, gateway=values.nth_address(cidr, 1)),
            'enable_dhcp': True})
        return store.update(object_id, subnets=[subnet_id])


def _cidr_for(name: str, external: bool) -> str:
    if external:
        return '203.0.113.0/24'
    if name == 'private':
        return '10.0.0.0/24'
    octet = int(hashlib.sha256(name.encode()).hexdigest()[:2], 16) or 1
    return '10.%d.0.0/24' % octet


class ProviderNet(_Network):
    type_name = 'OS::Neutron::ProviderNet'


class Vpc(_Network):
    type_name = 'AWS::EC2::VPC'

    def create(self, sim):
        fields = super().create(sim)
        fields['cidr'] = sim.props.get('CidrBlock')
        return fields


class _Subnet(models.SimulatedType):
    kind = 'subnet'

    def fields(self, sim) -> dict:
        """The subnet as its template says it (CIDR, network...)."""
        return super().create(sim)

    def create(self, sim):
        fields = self.fields(sim)
        cidr = fields.get('cidr') or '10.0.0.0/24'
        network = fields.get('network') or fields.get('network_id')
        gateway = fields.get('gateway_ip')
        if gateway in (None, 'auto'):
            gateway = values.nth_address(cidr, 1)
        elif gateway == '':
            gateway = None
        fields.update({
            'cidr': cidr, 'network_id': network,
            'ip_version': int(fields.get('ip_version') or
                              (6 if ':' in cidr else 4)),
            'gateway_ip': gateway,
            'allocation_pools': values.pools_of(
                cidr, fields.get('allocation_pools'), gateway),
            'enable_dhcp': fields.get('enable_dhcp', True),
            'dns_nameservers': fields.get('dns_nameservers') or [],
            'host_routes': fields.get('host_routes') or [],
            'tenant_id': sim.project})
        return fields


class Subnet(_Subnet):
    type_name = 'OS::Neutron::Subnet'
    section = 'subnets'


class Ec2Subnet(_Subnet):
    type_name = 'AWS::EC2::Subnet'

    def fields(self, sim):
        fields = super().fields(sim)
        fields.update(cidr=sim.props.get('CidrBlock'),
                      network=sim.props.get('VpcId'))
        return fields


class _Port(models.SimulatedType):
    kind = 'port'

    def addresses(self, sim) -> tuple:
        """(the port's network, the fixed IPs asked for)."""
        props = sim.props
        network = props.get('network') or props.get('network_id')
        requested = [] if props.get('no_fixed_ips') else (
            props.get('fixed_ips') or [])
        return network, requested

    def create(self, sim):
        props = sim.props
        network, requested = self.addresses(sim)
        fields = port_fields(sim, network, requested,
                             name=props.get('name') or sim.physical_name,
                             device_id=props.get('device_id') or '')
        fields.update({k: v for k, v in props.items()
                       if k in ('admin_state_up', 'mac_address',
                                'allowed_address_pairs',
                                'port_security_enabled', 'qos_policy',
                                'device_owner', 'binding:vnic_type')})
        fields['security_groups'] = props.get('security_groups') or []
        return fields

    def attribute(self, sim, obj, name):
        if name == 'subnets':
            return [dict(sim.store.get(f['subnet_id']) or {})
                    for f in obj.get('fixed_ips') or []]
        if name == 'network':
            return dict(sim.store.get(obj.get('network_id')) or {})
        if name == 'dns_assignment':
            first = (obj.get('fixed_ips') or [{}])[0]
            return {'hostname': 'host-%s' % (first.get('ip_address') or
                                             '').replace('.', '-'),
                    'ip_address': first.get('ip_address'),
                    'fqdn': 'host.openstacklocal.'}
        if name in ('propagate_uplink_status',):
            return False
        return models.NOTHING

    def update(self, sim, obj, prop_diff):
        changes = super().update(sim, obj, prop_diff)
        if 'fixed_ips' in prop_diff:
            changes['fixed_ips'] = fixed_ips_for(
                sim, obj['network_id'], prop_diff['fixed_ips'] or [])
        return changes


class Port(_Port):
    type_name = 'OS::Neutron::Port'
    build_times = {'CREATE': (1.0, 1.5)}
    failures = {'CREATE': 'Conflict: %s. Neutron server returns '
                          "request_ids: ['req-0d6c2a9e']" % PORT_IP_TAKEN}
    refusals = {'CREATE': ('IpAddressAlreadyAllocatedClient',
                           PORT_IP_TAKEN)}
    section = 'ports'


class NetworkInterface(_Port):
    type_name = 'AWS::EC2::NetworkInterface'

    def addresses(self, sim):
        props = sim.props
        subnet = sim.store.get(props.get('SubnetId')) or sim.find(
            'subnet', props.get('SubnetId'))
        return subnet['network_id'], [{
            'subnet': subnet.id, 'ip_address': props.get('PrivateIpAddress')}]


class Router(models.SimulatedType):
    type_name = 'OS::Neutron::Router'
    kind = 'router'
    build_times = {'CREATE': (2.0, 4.0)}
    section = 'routers'

    def create(self, sim):
        fields = super().create(sim)
        gateway = fields.get('external_gateway_info')
        if gateway:
            network = sim.store.get(gateway.get('network')) or sim.find(
                'network', gateway.get('network'))
            subnet = (subnets_of(sim.store, network.id) or [None])[0]
            ips = []
            if subnet is not None:
                ips = [{'subnet_id': subnet.id,
                        'ip_address': allocate(sim.store, subnet)}]
                gw_port = new_port(sim, network.id, ips,
                                   seed_suffix='/gateway',
                                   extra={'device_owner':
                                          'network:router_gateway'})
                ips = gw_port['fixed_ips']
            fields['external_gateway_info'] = {
                'network_id': network.id,
                'enable_snat': gateway.get('enable_snat', True),
                'external_fixed_ips': ips}
        fields['tenant_id'] = sim.project
        return fields

    def delete(self, sim, obj):
        for port in sim.store.all('port', device_owner='network:'
                                  'router_gateway'):
            if port.stack_id == sim.rsrc.stack.id and port.name == '' and \
                    port.get('network_id') == (obj.get(
                        'external_gateway_info') or {}).get('network_id'):
                sim.store.delete(port.id)


class RouterInterface(models.SimulatedType):
    type_name = 'OS::Neutron::RouterInterface'
    kind = 'router_interface'
    build_times = {'CREATE': (1.5, 3.0)}

    def create(self, sim):
        fields = super().create(sim)
        subnet = fields.get('subnet')
        if subnet:
            fields['id'] = '%s:subnet_id=%s' % (fields.get('router'), subnet)
        elif fields.get('port'):
            fields['id'] = '%s:port_id=%s' % (fields.get('router'),
                                              fields['port'])
        return fields


def _floating_network(sim, ref):
    network = sim.store.get(ref) if ref else None
    if network is None:
        network = sim.find('network', ref or 'public')
    return network


def floating_address(sim, network, subnet_ref=None):
    subnet = sim.store.get(subnet_ref) if subnet_ref else None
    if subnet is None:
        subnet = (subnets_of(sim.store, network.id) or [None])[0]
    if subnet is None:
        return None, None
    return subnet.id, allocate(sim.store, subnet)


def router_for(store, port_id, floating_network_id):
    """The router through which a port's floating IP is reached.

    As Neutron finds it on association: a router with an interface on
    one of the port's subnets and its gateway on the floating network.
    """
    port = store.get(port_id) if port_id else None
    if port is None:
        return None
    subnets = {f.get('subnet_id') for f in port.get('fixed_ips') or []}
    for interface in store.all('router_interface'):
        subnet = interface.get('subnet')
        if not subnet and interface.get('port'):
            on = store.get(interface['port']) or {}
            subnet = next((f.get('subnet_id')
                           for f in on.get('fixed_ips') or []), None)
        router = store.get(interface.get('router') or '')
        if router is None or subnet not in subnets:
            continue
        gateway = router.get('external_gateway_info') or {}
        if gateway.get('network_id') == floating_network_id:
            return router.id
    return None


def port_first_address(store, port_id):
    port = store.get(port_id) if port_id else None
    if port is None:
        return None
    return next((f.get('ip_address') for f in port.get('fixed_ips') or []),
                None)


class FloatingIP(models.SimulatedType):
    type_name = 'OS::Neutron::FloatingIP'
    kind = 'floatingip'
    build_times = {'CREATE': (1.0, 3.0)}
    failures = {'CREATE': 'Conflict: No more IP addresses available on '
                          'network public. Neutron server returns '
                          "request_ids: ['req-5a3f16c2']"}

    def create(self, sim):
        props = sim.props
        network = _floating_network(sim, props.get('floating_network'))
        subnet_id, address = floating_address(
            sim, network, props.get('floating_subnet'))
        port_id = props.get('port_id')
        return {
            'floating_network_id': network.id,
            'floating_subnet_id': subnet_id,
            'floating_ip_address': props.get('floating_ip_address') or
            address,
            'port_id': port_id,
            'fixed_ip_address': props.get('fixed_ip_address') or
            port_first_address(sim.store, port_id),
            'router_id': router_for(sim.store, port_id, network.id),
            'tenant_id': sim.project,
            'status': 'ACTIVE' if port_id else 'DOWN'}

    def update(self, sim, obj, prop_diff):
        changes = super().update(sim, obj, prop_diff)
        if 'port_id' in prop_diff:
            changes['fixed_ip_address'] = port_first_address(
                sim.store, prop_diff['port_id'])
            changes['router_id'] = router_for(
                sim.store, prop_diff['port_id'],
                obj.get('floating_network_id'))
        return changes


class FloatingIPAssociation(models.SimulatedType):
    type_name = 'OS::Neutron::FloatingIPAssociation'
    kind = 'floatingip_association'

    def create(self, sim):
        props = sim.props
        fip = sim.store.get(props['floatingip_id']) or {}
        sim.store.update(props['floatingip_id'], port_id=props['port_id'],
                         status='ACTIVE',
                         fixed_ip_address=props.get('fixed_ip_address') or
                         port_first_address(sim.store, props['port_id']),
                         router_id=router_for(
                             sim.store, props['port_id'],
                             fip.get('floating_network_id')))
        return dict(props)

    def update(self, sim, obj, prop_diff):
        self.delete(sim, obj)
        merged = dict(obj)
        merged.update(prop_diff)
        fip = sim.store.get(merged['floatingip_id']) or {}
        sim.store.update(merged['floatingip_id'], port_id=merged['port_id'],
                         fixed_ip_address=port_first_address(
                             sim.store, merged['port_id']),
                         router_id=router_for(
                             sim.store, merged['port_id'],
                             fip.get('floating_network_id')))
        return dict(prop_diff)

    def delete(self, sim, obj):
        fip = sim.store.get(obj.get('floatingip_id'))
        if fip is not None and fip.get('port_id') == obj.get('port_id'):
            sim.store.update(fip.id, port_id=None, fixed_ip_address=None,
                             router_id=None, status='DOWN')


class _SecurityGroup(models.SimulatedType):
    kind = 'security_group'

    def create(self, sim):
        fields = super().create(sim)
        fields['tenant_id'] = sim.project
        return fields


class SecurityGroup(_SecurityGroup):
    type_name = 'OS::Neutron::SecurityGroup'
    section = 'security_groups'


class Ec2SecurityGroup(_SecurityGroup):
    type_name = 'AWS::EC2::SecurityGroup'


class QosPolicy(models.SimulatedType):
    """A QoS policy, as Heat's Neutron plugin's get_qos_policy_id finds it.

    Its generic finder asks for ``qos_policy`` instead (``NEUTRON_KINDS``
    of :mod:`~heat_breakpoint.server.cloud.lookups`).
    """

    kind = 'policy'
    lookups = {'get_qos_policy_id': True}
