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
"""What the cloud already has before any stack: flavors, images, networks.

A template names things of the cloud it runs in (``flavor: m1.small``,
``image: cirros``, ``key_name: mykey``, ``network: public``). With no
inventory, the simulated cloud assumes each such name exists the first
time it is looked up, with values a real cloud would give it (an
``m1.small`` has 1 vCPU, 2 GiB and a 20 GB disk; ``public`` is an
external network with a subnet), and reports every name it assumed. With
``--cloud FILE`` (YAML, the format below) the names are those of the
file and nothing else: a wrong name fails as it would in that cloud.
What an assumed object has, what comes with it (a network's subnet) and
the section that lists its kind are its class's
(:mod:`~heat_breakpoint.server.cloud.registry`).

.. code-block:: yaml

    flavors:
      - {name: m1.small, vcpus: 1, ram: 2048, disk: 20}
    images: [cirros, {name: ubuntu-22.04, min_disk: 8}]
    networks:
      - {name: public, external: true, cidr: 203.0.113.0/24}
      - {name: private, cidr: 10.0.0.0/24}
    keypairs: [mykey]
    security_groups: [default]
    volume_types: [lvmdriver-1]
    availability_zones: [nova]
"""

import contextlib
import threading
from typing import Optional

from heat_breakpoint.server import config

from heat_breakpoint.server.cloud import registry
from heat_breakpoint.server.cloud import store as cloud_store
from heat_breakpoint.server.cloud import user_files
from heat_breakpoint.server.cloud import values

# The file's sections and the kind of object each lists: the classes'.
SECTIONS = registry.REGISTRY.sections


class InventoryError(config.SetupError):
    """The --cloud file cannot be used; the message says why in one line."""


class NotFound(LookupError):
    """A strict inventory has no object of that kind and name."""

    def __init__(self, kind: str, name: str):
        super().__init__('%s %r' % (kind, name))
        self.kind = kind
        self.name = name


class Inventory(object):
    """Finds cloud-side objects; assumes them unless it is strict."""

    def __init__(self, store: cloud_store.Store, strict: bool = False):
        self.store = store
        self.strict = strict
        self._local = threading.local()

    @contextlib.contextmanager
    def noting_assumptions(self):
        """Collect, in this thread, the assumed objects looked up."""
        self._local.noted = noted = []
        try:
            yield noted
        finally:
            self._local.noted = None

    def _note(self, found):
        noted = getattr(self._local, 'noted', None)
        if noted is not None and found.origin == cloud_store.ASSUMED:
            entry = (found.kind, found.name or found.id)
            if entry not in noted:
                noted.append(entry)
        return found

    @classmethod
    def from_file(cls, store, path: str) -> 'Inventory':
        doc = user_files.load_yaml(path, 'cloud', InventoryError) or {}
        if not isinstance(doc, dict):
            raise InventoryError('the cloud file %s must be a mapping of '
                                 'sections (%s)' % (path, ', '.join(
                                     sorted(SECTIONS))))
        unknown = sorted(set(doc) - set(SECTIONS))
        if unknown:
            raise InventoryError(
                'the cloud file %s has unknown sections: %s (known: %s)'
                % (path, ', '.join(map(str, unknown)),
                   ', '.join(sorted(SECTIONS))))
        entries = []
        for section, items in doc.items():
            if not isinstance(items, list):
                raise InventoryError('%s in %s must be a list'
                                     % (section, path))
            for item in items:
                if isinstance(item, str):
                    item = {'name': item}
                if not isinstance(item, dict) or not item.get('name'):
                    raise InventoryError('each of %s in %s needs a name: %r'
                                         % (section, path, item))
                entries.append((SECTIONS[section], dict(item)))
        inventory = cls(store, strict=True)
        for kind, item in entries:
            inventory._add(kind, item.pop('name'), cloud_store.INVENTORY,
                           item)
        return inventory

    def _add(self, kind: str, name: Optional[str], origin: str,
             fields: dict, object_id: Optional[str] = None):
        data = registry.REGISTRY.inventory_fields(kind, name)
        data.update(fields)
        data['name'] = name
        object_id = (object_id or data.pop('id', None) or
                     values.object_id(kind, 'cloud:%s' % name))
        data['id'] = object_id
        return registry.REGISTRY.keep(self.store, kind, object_id, name,
                                      origin, data)

    def find(self, kind, name_or_id: str):
        """The object, assumed if need be; NotFound if strict and absent."""
        kinds = [kind] if isinstance(kind, str) else list(kind)
        found = self.store.find(kinds, name_or_id)
        if found:
            return self._note(found[0])
        if self.strict:
            raise NotFound(kinds[0], name_or_id)
        if values.looks_like_uuid(name_or_id):
            return self._note(self._add(kinds[0], None, cloud_store.ASSUMED,
                                        {}, object_id=name_or_id))
        return self._note(self._add(kinds[0], name_or_id,
                                    cloud_store.ASSUMED, {}))

    def assumed(self) -> list:
        return self.store.assumed()
