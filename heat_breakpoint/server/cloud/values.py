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
"""Values that look like a cloud's: IDs, MAC and IP addresses, and the rest.

Everything is derived from a seed (the stack's name and the resource's
path), so a re-run of the same stack gets the same IDs, as a template
author comparing two runs expects. An attribute nobody modelled gets a
value of the type its schema declares, that says it is simulated: never
a silent ``None``.
"""

import hashlib
import ipaddress
import re
import uuid

NAMESPACE = uuid.UUID('5f0e2b4e-6c55-4e1c-9c8e-3b1c1d0a7e11')
MARK = 'simulated'
HEX_ID_KINDS = ('project', 'user', 'group', 'role', 'domain', 'region',
                'service', 'endpoint', 'credential', 'trust')


def object_id(kind: str, seed: str) -> str:
    """A UUID (or Keystone's 32 hex digits) that is always the same."""
    value = uuid.uuid5(NAMESPACE, '%s:%s' % (kind, seed))
    return value.hex if kind in HEX_ID_KINDS else str(value)


def mac_address(seed: str) -> str:
    digest = hashlib.sha256(seed.encode()).digest()
    return 'fa:16:3e:%02x:%02x:%02x' % tuple(digest[:3])


def hex_token(seed: str, length: int = 32) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()[:length]


def nth_address(cidr: str, index: int) -> str:
    """The index-th usable host of a network (1 is the first)."""
    net = ipaddress.ip_network(cidr, strict=False)
    return str(net.network_address + index)


def pools_of(cidr: str, pools=None, gateway=None) -> list:
    """Neutron's default pools: the subnet's hosts but its gateway.

    ``gateway`` is the gateway's address, or None for a subnet without
    one; given ``pools`` are kept as they are.
    """
    if pools:
        return [{'start': p['start'], 'end': p['end']} for p in pools]
    net = ipaddress.ip_network(cidr, strict=False)
    first = net.network_address + 1
    last = net.broadcast_address - 1 if net.version == 4 else (
        net.network_address + min(net.num_addresses - 1, 2 ** 16))
    ranges = [(first, last)]
    if gateway:
        gw = ipaddress.ip_address(gateway)
        if first <= gw <= last:
            # Neutron splits the range around a gateway inside it.
            ranges = [(a, b) for a, b in ((first, gw - 1), (gw + 1, last))
                      if a <= b]
    return [{'start': str(a), 'end': str(b)} for a, b in ranges]


def first_free(cidr: str, pools, taken) -> str:
    """The lowest address of the pools that is not taken, as DHCP gives."""
    taken = set(taken)
    for pool in pools or pools_of(cidr, gateway=nth_address(cidr, 1)):
        start = ipaddress.ip_address(pool['start'])
        end = ipaddress.ip_address(pool['end'])
        address = start
        while address <= end:
            if str(address) not in taken:
                return str(address)
            address += 1
    raise ValueError('No more IP addresses available on network.')


def looks_like_uuid(value) -> bool:
    return isinstance(value, str) and bool(re.fullmatch(
        r'[0-9a-fA-F]{8}-?([0-9a-fA-F]{4}-?){3}[0-9a-fA-F]{12}', value))


def by_schema(type_name, attribute: str, owner: str):
    """A value of the declared attribute type that says it is simulated."""
    kind = (type_name or 'String').lower()
    words = '%s: %s of %s' % (MARK, attribute, owner)
    if kind == 'map':
        return {MARK: True, 'attribute': attribute, 'resource': owner}
    if kind == 'list':
        return [words]
    if kind == 'integer':
        return 0
    if kind == 'boolean':
        return False
    return words


def by_name(attribute: str, seed: str):
    """What an attribute's name says it holds, in the cloud's shape."""
    name = attribute.lower()
    if name.endswith('_id') or name in ('id', 'uuid'):
        return object_id(name, seed + attribute)
    if 'mac' in name:
        return mac_address(seed + attribute)
    if name.endswith('_url') or name in ('url', 'href', 'endpoint'):
        return 'http://%s.invalid/%s' % (MARK, hex_token(seed, 12))
    if 'status' in name:
        return 'ACTIVE'
    return None
