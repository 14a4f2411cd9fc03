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
"""Heat's client plugins for absent services, answering from the cloud.

Heat finds cloud-side things through its client plugins: a custom
constraint (``nova.flavor``, ``glance.image``) calls the plugin's getter,
a translation rule its finder (a port's ``network`` name becomes an ID),
a resource's ``validate`` whatever it needs. For a service the local
server lacks, the plugin is Heat's own class with those look-ups answered
by the inventory and the objects stacks created, and the same exception
when something is missing (so the message is the one a real cloud's Heat
gives). What each kind is to a look-up (the plugin methods that find
it, Heat's word for a missing one) is declared on its class in the
:mod:`~heat_breakpoint.server.cloud.registry`. Everything else a plugin
would ask of its service raises :class:`NotSimulated`, which names the
call.
"""

import inspect

from heat.common import exception
from heat.engine.clients import client_plugin

from heat_breakpoint.server.cloud import compute
from heat_breakpoint.server.cloud import inventory as cloud_inventory
from heat_breakpoint.server.cloud import registry
from heat_breakpoint.server.cloud import zaqar

# Methods of a plugin that need no service: kept as Heat wrote them.
KEEP = {'get_heat_url', 'get_heat_cfn_url',
        'get_cfn_metadata_server_url', 'get_insecure_option',
        'get_volume_api_version', 'get_temp_url', 'get_signal_url',
        'get_files_from_container', 'get_console_urls', 'get_status',
        'get_ip', 'get_zaqar_url'}
# Kinds Neutron calls by other names in find_resourceid_by_name_or_id.
NEUTRON_KINDS = {'policy': 'qos_policy'}


class NotSimulated(exception.Error):
    """A call the simulated cloud does not answer (yet)."""

    def __init__(self, service: str, call: str):
        super().__init__(
            'the simulated cloud does not answer %s %s (the local server '
            'has no %s service)' % (service, call, service))


class Found(str):
    """A cloud object as look-ups return it: its ID, with its fields.

    Finders return IDs and getters objects; both callers get what they
    use, since this is the ID and has the object's fields as attributes.
    """

    def __new__(cls, obj):
        self = super().__new__(cls, obj.id)
        self._fields = dict(obj, id=obj.id, name=obj.name)
        return self

    def __getattr__(self, name):
        try:
            return self.__dict__['_fields'][name]
        except KeyError:
            raise AttributeError(name)

    def to_dict(self) -> dict:
        return dict(self._fields)


class _Zone(object):
    def __init__(self, name):
        self.zoneName = name
        self.zoneState = {'available': True}


# The few calls Heat's own code makes on a service's client directly.
RAW_CALLS = {
    ('nova', 'availability_zones.list'):
        lambda *args, **kwargs: [_Zone('nova')],
}


class SimulatedClient(object):
    """What ``plugin.client()`` returns: every call names itself."""

    def __init__(self, service: str, path: str = ''):
        self._service = service
        self._path = path

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return SimulatedClient(self._service,
                               '%s.%s' % (self._path, name) if self._path
                               else name)

    def __call__(self, *args, **kwargs):
        call = RAW_CALLS.get((self._service, self._path))
        if call is None:
            raise NotSimulated(self._service, self._path)
        return call(*args, **kwargs)


def _not_found(plugin, kind: str, name: str):
    service = plugin.simulated_service
    if service == 'neutron':
        from neutronclient.common import exceptions as neutron_exc
        raise neutron_exc.NotFound(
            message="Unable to find %s with name or id '%s'" % (kind, name))
    raise exception.EntityNotFound(
        entity=registry.REGISTRY.entity(kind), name=name)


def _lookup(plugin, kind: str, name_or_id, as_id: bool):
    if name_or_id is None:
        return None
    name = str(name_or_id)
    if plugin.simulated_service == 'keystone' and '{' in name:
        name = name.split('{', 1)[0]
    try:
        found = plugin.cloud.inventory.find(kind, name)
    except cloud_inventory.NotFound:
        _not_found(plugin, kind, name)
    return found.id if as_id else Found(found)


def _make_lookup(kind: str, as_id: bool):
    def lookup(self, name_or_id, *args, **kwargs):
        return _lookup(self, kind, name_or_id, as_id)
    return lookup


def _guess_kind(method: str) -> str:
    kind = method.split('_', 1)[1]
    for suffix in ('_by_name_or_id', '_id', '_by_ref', '_by_identifier'):
        if kind.endswith(suffix):
            kind = kind[:-len(suffix)]
    return kind


class _SimulatedPlugin(object):
    """Mixed in before Heat's own plugin class."""

    simulated_service = None
    cloud = None

    def does_endpoint_exist(self, service_type, service_name):
        return True

    def has_extension(self, alias):
        return True

    def _create(self, *args, **kwargs):
        return SimulatedClient(self.simulated_service)

    def url_for(self, **kwargs):
        return 'http://%s.simulated.invalid/' % self.simulated_service

    def get_max_microversion(self):
        """The newest microversion Heat's client for the service knows."""
        if self.simulated_service == 'nova':
            import novaclient
            return novaclient.API_MAX_VERSION.get_string()
        if self.simulated_service == 'cinder':
            from cinderclient import api_versions
            return api_versions.MAX_VERSION
        return None

    def is_version_supported(self, version):
        return True

    def absolute_limits(self):
        """Nova's default quotas, as ``limits.get().absolute`` shows."""
        return {'maxServerMeta': 128, 'maxPersonality': 5,
                'maxPersonalitySize': 10240, 'maxTotalInstances': 10,
                'maxTotalCores': 20, 'maxTotalRAMSize': 51200,
                'maxTotalKeypairs': 100, 'maxImageMeta': 128,
                'maxSecurityGroups': 10, 'maxSecurityGroupRules': 20,
                'totalInstancesUsed': 0, 'totalCoresUsed': 0,
                'totalRAMUsed': 0}


class _NeutronLookups(object):
    """Neutron's finders, which take the kind as an argument."""

    def find_resourceid_by_name_or_id(self, resource, name_or_id,
                                      cmd_resource=None):
        kind = NEUTRON_KINDS.get(resource, resource)
        return _lookup(self, kind, name_or_id, True)

    def resolve_ext_resource(self, resource, name_or_id):
        return _lookup(self, resource, name_or_id, True)

    def network_id_from_subnet_id(self, subnet_id):
        return _lookup(self, 'subnet', subnet_id, False).network_id

    def get_secgroup_uuids(self, security_groups):
        return [_lookup(self, 'security_group', group, True)
                for group in security_groups]


def plugin_class(real_cls, service: str, cloud, client=None):
    """Heat's plugin class for ``service`` with its look-ups simulated.

    ``client(plugin)``, when given, is what the plugin's ``client()``
    returns (a simulated Keystone or Swift); else every call of the
    client raises :class:`NotSimulated`.
    """
    bases = (_SimulatedPlugin, real_cls)
    if service == 'neutron':
        bases = (_NeutronLookups,) + bases
    attrs = {'simulated_service': service, 'cloud': cloud}
    if client is not None:
        attrs['_create'] = lambda self, *args, **kwargs: client(self)
    for name, member in inspect.getmembers(real_cls, inspect.isfunction):
        if name in KEEP or any(name in vars(b) for b in bases[:-1]):
            continue
        if hasattr(client_plugin.ClientPlugin, name):
            continue
        if name in registry.REGISTRY.lookups:
            attrs[name] = _make_lookup(*registry.REGISTRY.lookups[name])
        elif name.startswith(('get_', 'find_')):
            attrs[name] = _make_lookup(_guess_kind(name), False)
        elif name.startswith('has_'):
            attrs[name] = _yes
    attrs.update(SERVICE_METHODS.get(service, {}))
    return type('Simulated' + real_cls.__name__, bases, attrs)


def _yes(self, *args, **kwargs):
    return True


def _server_to_ipaddress(self, server):
    found = self.cloud.store.get(server)
    if found is None:
        return None
    return compute.first_address(self.cloud.store, found.get('ports') or [])


def _datastore_exists(self, *args, **kwargs):
    return None


# Calls of one service's plugin that are neither look-ups nor kept.
SERVICE_METHODS = {
    'nova': {'server_to_ipaddress': _server_to_ipaddress},
    'trove': {'validate_datastore': _datastore_exists},
    # Heat makes a deployment's queue with its stack user's token, or
    # from a signed URL, not with the plugin's client().
    'zaqar': {'create_for_tenant': zaqar.create_for_tenant,
              'create_from_signed_url': zaqar.create_from_signed_url},
}


def constraint_service(constraint):
    """The service a custom constraint asks (its client's, or module's)."""
    name = getattr(constraint, 'resource_client_name', None)
    if name:
        return name
    module = constraint.__module__
    prefix = 'heat.engine.clients.os.'
    if module.startswith(prefix):
        return module[len(prefix):].split('.')[0]
    return None


def constraint_kind(name: str) -> str:
    return registry.REGISTRY.constraint_kinds.get(
        name, name.rsplit('.', 1)[-1])


def constraint_class(real_cls, name: str):
    """Heat's custom constraint, checked against the simulated cloud.

    The value must name an object of the cloud (the inventory, or what a
    stack created); what is raised when it does not is what the real
    service's client plugin raises, so the message is the same.
    """
    kind = constraint_kind(name)

    service = constraint_service(real_cls)

    def validate_with_client(self, client, value):
        _lookup(client.client_plugin(service), kind, value, True)

    expected = tuple(real_cls.expected_exceptions) + (
        exception.EntityNotFound,)
    try:
        from neutronclient.common import exceptions as neutron_exc
        expected += (neutron_exc.NotFound,)
    except ImportError:
        pass
    return type('Simulated' + real_cls.__name__, (real_cls,), {
        'validate_with_client': validate_with_client,
        'expected_exceptions': expected})
