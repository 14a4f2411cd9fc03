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
"""The simulated types, listed: the one place a type is registered.

A type is served by the local server if and only if its class is in
:data:`TYPES`; nothing registers itself by being imported. The tables
the rest of the simulated cloud reads (build times, failure words, what
Heat's look-ups find, the ``--cloud`` file's sections) are made here
from the classes, and checked once: a type name, a look-up, a section or
a kind's words declared twice is a :class:`RegistryError` at import.
"""

from heat_breakpoint.server.cloud import compute
from heat_breakpoint.server.cloud import image
from heat_breakpoint.server.cloud import keystone_kinds
from heat_breakpoint.server.cloud import models
from heat_breakpoint.server.cloud import network
from heat_breakpoint.server.cloud import octavia
from heat_breakpoint.server.cloud import volume

TYPES = (
    compute.Server, compute.Instance, compute.KeyPair, compute.Flavor,
    compute.ElasticIp, compute.ElasticIpAssociation, compute.Host,
    compute.AvailabilityZone,
    network.Net, network.ProviderNet, network.Vpc, network.Subnet,
    network.Ec2Subnet, network.Port, network.NetworkInterface,
    network.Router, network.RouterInterface, network.FloatingIP,
    network.FloatingIPAssociation, network.SecurityGroup,
    network.Ec2SecurityGroup, network.QosPolicy,
    volume.Volume, volume.Ec2Volume, volume.VolumeAttachment,
    volume.Ec2VolumeAttachment, volume.VolumeType, volume.VolumeSnapshot,
    volume.VolumeBackup, volume.QosSpecs,
    image.Image,
    keystone_kinds.Role, keystone_kinds.Project, keystone_kinds.Domain,
    keystone_kinds.Group, keystone_kinds.Service, keystone_kinds.User,
    keystone_kinds.Region,
    octavia.LoadBalancer,
)


class RegistryError(Exception):
    """A simulated type declared wrong; the message names it and why."""


def _check(cls) -> None:
    name = getattr(cls, '__name__', repr(cls))
    if not (isinstance(cls, type) and issubclass(cls, models.SimulatedType)):
        raise RegistryError('%s is not a SimulatedType' % name)
    if not isinstance(cls.kind, str) or not cls.kind:
        raise RegistryError('%s declares no kind' % name)
    if cls.type_name is None and not _says_what_is_found(cls):
        raise RegistryError('%s declares neither a type_name nor how Heat '
                            'finds one' % name)
    for table in ('build_times', 'failures', 'refusals'):
        wrong = sorted(set(getattr(cls, table)) - set(models.ACTIONS))
        if wrong:
            raise RegistryError('%s: %s of unknown actions %s (one of %s)'
                                % (name, table, ', '.join(wrong),
                                   ', '.join(models.ACTIONS)))
    for action, times in cls.build_times.items():
        if not (isinstance(times, tuple) and len(times) == 2 and
                0 <= times[0] <= times[1]):
            raise RegistryError('%s: build time of %s must be (low, high) '
                                'with 0 <= low <= high, got %r'
                                % (name, action, times))
    for action, refusal in cls.refusals.items():
        if not (isinstance(refusal, tuple) and len(refusal) == 2):
            raise RegistryError('%s: refusal of %s must be (error class '
                                'name, message), got %r'
                                % (name, action, refusal))


def _says_what_is_found(cls) -> bool:
    """Does the class declare what its kind is to look-ups?"""
    return bool(cls.entity or cls.lookups or cls.section or
                cls.constraints or any(
                    getattr(cls, hook).__func__ is not
                    getattr(models.SimulatedType, hook).__func__
                    for hook in ('inventory_fields', 'keep')))


class Registry(object):
    """What the local server knows of each type, from its class."""

    def __init__(self, classes):
        self.classes = tuple(classes)
        self._declared_by = {}
        self._models = {}
        self._owners = {}
        #: A client plugin method -> (the kind it finds, answers the ID).
        self.lookups = {}
        #: A section of the ``--cloud`` file -> the kind it lists.
        self.sections = {}
        #: A custom constraint -> its kind, where not its last name part.
        self.constraint_kinds = {}
        for cls in self.classes:
            _check(cls)
            self._add(cls)

    def _claim(self, table: dict, key, value, what: str, cls) -> None:
        first = self._declared_by.setdefault((what, key), cls)
        if first is not cls:
            raise RegistryError('%s %s is declared twice: by %s and by %s'
                                % (what, key, first.__name__, cls.__name__))
        table[key] = value

    def _add(self, cls) -> None:
        if cls.type_name is not None:
            self._claim(self._models, cls.type_name, cls(), 'type', cls)
        if _says_what_is_found(cls):
            self._claim(self._owners, cls.kind, cls,
                        'what look-ups find of kind', cls)
        for method, as_id in cls.lookups.items():
            self._claim(self.lookups, method, (cls.kind, as_id),
                        'look-up', cls)
        if cls.section:
            self._claim(self.sections, cls.section, cls.kind, 'section',
                        cls)
        for constraint in cls.constraints:
            self._claim(self.constraint_kinds, constraint, cls.kind,
                        'constraint', cls)

    @property
    def type_names(self) -> list:
        return sorted(self._models)

    def model_for(self, type_name: str) -> models.SimulatedType:
        """The type's class, or the base (from its schemas alone)."""
        return self._models.get(type_name) or models.SimulatedType()

    def build_time(self, type_name: str, action: str) -> tuple:
        """(low, high) seconds of the action with ``--realistic-times``."""
        return self.model_for(type_name).build_time(action)

    def failure(self, type_name: str, action: str):
        """The service's words when the action fails, or None."""
        return self.model_for(type_name).failures.get(action)

    def refusal(self, type_name: str, action: str):
        """(error class name, message) of the service's refusal, or None."""
        return self.model_for(type_name).refusals.get(action)

    def entity(self, kind: str) -> str:
        """Heat's word for a missing object of the kind."""
        owner = self._owners.get(kind)
        return (owner.entity if owner is not None and owner.entity else
                kind.replace('_', ' ').title())

    def inventory_fields(self, kind: str, name) -> dict:
        """What a real cloud shows for an object of this kind and name."""
        owner = self._owners.get(kind)
        return owner.inventory_fields(name) if owner is not None else {}

    def keep(self, store, kind: str, object_id: str, name, origin: str,
             data: dict):
        """Add an object the cloud has, as its kind's class adds one."""
        owner = self._owners.get(kind) or models.SimulatedType
        return owner.keep(store, kind, object_id, name, origin, data)


REGISTRY = Registry(TYPES)
