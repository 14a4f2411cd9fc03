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
"""The simulated cloud behind the local server's real Heat.

The local server runs Heat and nothing else; a real template asks for
servers, ports, volumes and software deployments. Here the services Heat
would talk to answer from a simulation, while everything that is Heat's
(schemas, validation, dependencies, update and replace decisions, nested
stacks, signals) runs as shipped:

* :mod:`.lookups` and :mod:`.keystone`: Heat's client plugins, for the
  look-ups and the stack users Heat's own resources need;
* :mod:`.resources`: Heat's resource plugins with their service calls
  answered by each type's class (a :class:`.models.SimulatedType` in its
  service's module: :mod:`.compute`, :mod:`.network`, :mod:`.volume`...),
  listed in :mod:`.registry`; objects kept in :mod:`.store`;
* :mod:`.inventory`: what the cloud has before any stack;
* :mod:`.agents`: what a server's agents would do (deployments, signals).

It exists only in ``heat-breakpoint-server``: nothing in the engine
plugin imports it, and a Heat with the plugin installed never simulates.
"""

import os
import threading

from oslo_log import log as logging

from heat_breakpoint.server.cloud import faults as cloud_faults
from heat_breakpoint.server.cloud import inventory as cloud_inventory
from heat_breakpoint.server.cloud import store as cloud_store
from heat_breakpoint.server.cloud import timing as cloud_timing

LOG = logging.getLogger(__name__)

# Heat's own service: never simulated (the local server is it).
HEAT = 'heat'
# Simulated without a Keystone, real with one (``--keystone``).
KEYSTONE = 'keystone'
STORE_FILE = 'cloud.sqlite'


class Cloud(object):
    """One simulated cloud: its objects, inventory and what it simulates."""

    def __init__(self, state_dir: str, cloud_file=None, faults_file=None,
                 realistic_times=False):
        self.faults = cloud_faults.FaultBook(
            cloud_faults.load_file(faults_file) if faults_file else ())
        self.timing = cloud_timing.Timing() if realistic_times else None
        self.store = cloud_store.Store(os.path.join(state_dir, STORE_FILE))
        if cloud_file:
            self.inventory = cloud_inventory.Inventory.from_file(
                self.store, cloud_file)
        else:
            self.inventory = cloud_inventory.Inventory(self.store)
        self.lock = threading.RLock()
        self.services = []
        self.types = []

    def describe(self) -> str:
        """One line for the server's start banner."""
        lookups = ('names from %s' % 'the --cloud file'
                   if self.inventory.strict else
                   'any name (each one assumed is reported)')
        text = ('simulated cloud: %d resource types of %d services (%s); '
                'lookups accept %s' % (
                    len(self.types), len(self.services),
                    ', '.join(sorted(self.services)), lookups))
        if self.faults.rules:
            text += '; %d fault rules' % len(self.faults.rules)
        if self.timing:
            text += '; realistic build times'
        return text


def install(cloud: Cloud, real_keystone: bool = False) -> Cloud:
    """Simulate every service but Heat's, in this process's Heat.

    ``real_keystone``: the server runs with a real Keystone, which is not
    simulated then (its users, trusts and tokens are the real ones).
    """
    from heat.engine import clients
    from heat.engine import resources

    from heat_breakpoint.server.cloud import agents
    from heat_breakpoint.server.cloud import keystone
    from heat_breakpoint.server.cloud import lookups
    from heat_breakpoint.server.cloud import notice
    from heat_breakpoint.server.cloud import resources as sim_resources
    from heat_breakpoint.server.cloud import swift
    from heat_breakpoint.server.cloud import zaqar

    # Clients Heat's own resources use beside their plugins' look-ups.
    clients_of = {
        'keystone': lambda plugin: keystone.SimulatedKeystone(
            plugin.context, cloud.store),
        'swift': lambda plugin: swift.SimulatedSwift(
            cloud.store, plugin.context.project_id),
        'zaqar': lambda plugin: zaqar.SimulatedZaqar(
            cloud.store, plugin.context.project_id),
    }

    clients.initialise()
    resources.initialise()
    real = {HEAT, KEYSTONE} if real_keystone else {HEAT}
    for name in clients._mgr.names():
        if name in real:
            continue
        extension = clients._mgr[name]
        extension.plugin = lookups.plugin_class(
            extension.plugin, name, cloud, clients_of.get(name))
        cloud.services.append(name)
    env = resources.global_env()
    for name, constraint in sorted(env.constraints.items()):
        if lookups.constraint_service(constraint) in cloud.services:
            env.register_constraint(
                name, lookups.constraint_class(constraint, name))
    registry = env.registry
    for type_name, info in sorted(registry._registry.items()):
        cls = getattr(info, 'value', None)
        if not isinstance(cls, type):
            continue
        if sim_resources.needs_simulation(cls, cloud.services):
            registry.register_class(
                type_name, sim_resources.simulated_class(cls, cloud))
            cloud.types.append(type_name)
    agents.install(cloud)
    notice.install(cloud)
    LOG.info(cloud.describe())
    return cloud
