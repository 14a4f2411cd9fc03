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
"""What a type's own class does, without Heat: the EC2 twins, the networks.

An EC2 type shares its OpenStack twin's behaviour through a private base
and says only what differs (its property names), in its own class; what
comes with a network of the cloud (its subnet) is the network class's,
which the inventory reaches through the registry.
"""

import types

import pytest

from heat_breakpoint.server.cloud import inventory
from heat_breakpoint.server.cloud import network
from heat_breakpoint.server.cloud import registry
from heat_breakpoint.server.cloud import store as cloud_store


@pytest.fixture
def store(tmp_path):
    found = cloud_store.Store(str(tmp_path / 'cloud.sqlite'))
    yield found
    found.close()


def _sim(store, type_name, props):
    """What a type's class sees of a resource: its properties, the cloud."""
    found = inventory.Inventory(store)
    return types.SimpleNamespace(
        store=store, props=props, type_name=type_name, seed='stack/r',
        project='p1', physical_name='stack-r-abc', find=found.find)


def test_a_vpc_keeps_its_cidr_block_and_a_neutron_net_has_none(store):
    props = {'CidrBlock': '10.9.0.0/16'}
    vpc = network.Vpc().create(_sim(store, 'AWS::EC2::VPC', props))
    assert vpc['cidr'] == '10.9.0.0/16'
    assert vpc['router:external'] is False and vpc['tenant_id'] == 'p1'
    net = network.Net().create(_sim(store, 'OS::Neutron::Net', props))
    assert 'cidr' not in net


def test_an_ec2_subnet_reads_its_own_property_names(store):
    props = {'CidrBlock': '10.9.1.0/24', 'VpcId': 'vpc-1'}
    subnet = network.Ec2Subnet().create(
        _sim(store, 'AWS::EC2::Subnet', props))
    assert (subnet['cidr'], subnet['network_id'], subnet['gateway_ip']) == \
        ('10.9.1.0/24', 'vpc-1', '10.9.1.1')
    # The Neutron subnet does not: its CIDR is its own property's.
    neutron = network.Subnet().create(_sim(
        store, 'OS::Neutron::Subnet', dict(props, cidr='10.7.0.0/24',
                                           network='net-1')))
    assert (neutron['cidr'], neutron['network_id']) == ('10.7.0.0/24',
                                                        'net-1')


def test_a_network_interface_is_on_its_subnet_s_network(store):
    private = inventory.Inventory(store).find('network', 'private')
    subnet = store.get(private['subnets'][0])
    port = network.NetworkInterface().create(_sim(
        store, 'AWS::EC2::NetworkInterface',
        {'SubnetId': subnet.id, 'PrivateIpAddress': '10.0.0.42'}))
    assert port['network_id'] == private.id
    assert port['fixed_ips'] == [{'subnet_id': subnet.id,
                                  'ip_address': '10.0.0.42'}]
    # A Neutron port asks for its network by its own property.
    plain = network.Port().create(_sim(
        store, 'OS::Neutron::Port', {'network': private.id}))
    assert plain['network_id'] == private.id
    assert plain['fixed_ips'][0]['ip_address'] != '10.0.0.42'


def test_what_comes_with_a_network_of_the_cloud_is_its_class_s(store):
    added = registry.REGISTRY.keep(
        store, 'network', 'net-1', 'ext', cloud_store.INVENTORY,
        {'id': 'net-1', 'name': 'ext', 'router:external': False,
         'external': True, 'cidr': '198.51.100.0/24'})
    assert added['router:external'] is True
    assert 'external' not in added and 'cidr' not in added
    subnet = store.get(added['subnets'][0])
    assert (subnet.name, subnet['cidr'], subnet['network_id']) == (
        'ext-subnet', '198.51.100.0/24', 'net-1')
    # A registry without the network's class keeps the row alone.
    without = registry.Registry(
        [cls for cls in registry.TYPES if cls is not network.Net])
    alone = without.keep(store, 'network', 'net-2', 'other',
                         cloud_store.INVENTORY,
                         {'id': 'net-2', 'name': 'other'})
    assert 'subnets' not in alone
    assert store.all('subnet', network_id='net-2') == []
