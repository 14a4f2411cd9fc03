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
"""Heat's resource plugins, with the calls to an absent service simulated.

A simulated type is Heat's own class with :class:`SimulatedResource`
mixed in before it: the property and attribute schemas, validation,
translation, update policy (what is updated in place, what forces a
replacement) and everything Heat decides stay Heat's. Only the methods
that would talk to the service (``handle_*``, ``check_*_complete``,
attribute resolution, the live state) ask the type's
:class:`~heat_breakpoint.server.cloud.models.SimulatedType` instead (from
:mod:`~heat_breakpoint.server.cloud.registry`). The events and status
of a simulated resource say that it is simulated.
"""

import time

from heat.common import exception
from heat.engine import resource as heat_resource

from heat_breakpoint.server.cloud import lookups
from heat_breakpoint.server.cloud import models
from heat_breakpoint.server.cloud import paths
from heat_breakpoint.server.cloud import registry
from heat_breakpoint.server.cloud import values

SIMULATED_REASON = 'state changed (simulated cloud)'
# Where the plugins of other services live; some talk to their service
# without naming it as their default client (so that Heat counts them as
# always available), like AWS::EC2::SecurityGroup or OS::Nova::FloatingIP.
SERVICE_MODULES = ('heat.engine.resources.openstack.',
                   'heat.engine.resources.aws.ec2.',
                   'heat.engine.resources.aws.s3.')
HEAT_MODULES = ('heat.engine.resources.openstack.heat.',)
# Methods a plugin may have for actions the service runs; simulated as
# done, only on the types that have them.
ACTIONS = ('suspend', 'resume', 'check', 'snapshot')


class ResourceInError(exception.ResourceInError):
    """A fault on purpose, in the words the real service's failure has."""

    msg_fmt = '%(message)s'

    def __init__(self, message):
        super(exception.ResourceInError, self).__init__(message=message)


def refused(rule, type_name: str, action: str) -> Exception:
    """The service's refusal, as its client raises it (a quota...)."""
    kind, _text = rule.refusal(type_name, action)
    cls = type(kind, (exception.Error,), {})
    return cls(rule.failure_message(type_name, action))


class _Pending(object):
    """What an action's handle passes its check: when it may be done."""

    def __init__(self, decision=None, seconds=0.0, result=None):
        self.decision = decision
        self.ready_at = time.monotonic() + seconds
        self.result = result

    @property
    def fails(self) -> bool:
        """A fault rule fails the action: nothing is done in the store."""
        return self.decision is not None and self.decision.effect == 'fail'

    def done(self) -> bool:
        if self.decision is not None:
            if self.fails:
                raise ResourceInError(self.decision.rule.failure_message(
                    *self.decision.what))
            if self.decision.effect == 'hang':
                return False
        return time.monotonic() >= self.ready_at


class Sim(object):
    """One simulated resource, as its model sees it."""

    def __init__(self, rsrc, cloud):
        self.rsrc = rsrc
        self.cloud = cloud
        self.store = cloud.store
        self.inventory = cloud.inventory
        self.type_name = rsrc.type()
        self.name = rsrc.name
        self.seed = '%s/%s' % (paths.stack_path(rsrc.stack), rsrc.name)
        self._props = None

    @property
    def props(self) -> dict:
        if self._props is None:
            props = {}
            for key in self.rsrc.properties:
                try:
                    value = self.rsrc.properties[key]
                except Exception:
                    continue
                if value is not None:
                    props[key] = value
            self._props = props
        return self._props

    @property
    def physical_name(self) -> str:
        return self.rsrc.physical_resource_name() or self.rsrc.name

    @property
    def project(self):
        return self.rsrc.stack.tenant_id or self.rsrc.context.project_id

    def obj(self, object_id=None):
        object_id = object_id or self.rsrc.resource_id
        return self.store.get(object_id) if object_id else None

    def add(self, kind: str, fields: dict, name=None, seed_suffix=''):
        """A new object of the stack's, with an ID that a re-run repeats."""
        seed = self.seed + seed_suffix
        gen = self.store.generation(self.rsrc.stack.id, seed)
        object_id = fields.pop('id', None) or values.object_id(
            kind, '%s#%d' % (seed, gen))
        fields = dict(fields, id=object_id)
        if name is not None:
            fields['name'] = name
        return self.store.add(kind, object_id, name, 'created', fields,
                              project=self.project,
                              stack_id=self.rsrc.stack.id, seed=seed,
                              resource_type=self.type_name)

    def find(self, kind, name_or_id):
        return self.inventory.find(kind, name_or_id)


class SimulatedResource(object):
    """Mixed in before a Heat resource plugin whose service is absent."""

    simulated_cloud = None
    simulated = True

    @classmethod
    def is_service_available(cls, context):
        return True, None

    def _sim(self) -> Sim:
        return Sim(self, self.simulated_cloud)

    def _model(self):
        return registry.REGISTRY.model_for(self.type())

    def _pending(self, action: str, result=None) -> _Pending:
        """Whether a fault rule acts on this action, and its build time."""
        cloud = self.simulated_cloud
        if not cloud.faults.rules and not cloud.timing:
            return _Pending(result=result)
        root, path = paths.resource_path(self.context, self.stack.id,
                                         self.name)
        decision = cloud.faults.decide(path, self.type(), action,
                                       effects=('fail', 'delay', 'hang'),
                                       scope=root)
        seconds = cloud.timing.seconds(self.type(), action, path) \
            if cloud.timing else 0.0
        if decision is not None:
            decision.what = (self.type(), action)
            if decision.effect == 'delay':
                seconds = decision.rule.delay_for(path, decision.attempt)
            if decision.effect == 'fail' and \
                    decision.rule.failure == 'refused':
                raise refused(decision.rule, self.type(), action)
        return _Pending(decision, seconds, result)

    @staticmethod
    def _done(pending) -> bool:
        return pending.done() if isinstance(pending, _Pending) else True

    # CREATE / UPDATE / DELETE -------------------------------------------
    def handle_create(self):
        sim = self._sim()
        model = self._model()
        # A refusal raises here, before anything exists.
        pending = self._pending(self.CREATE)
        # One object at a time: addresses are handed out from what exists.
        with self.simulated_cloud.lock:
            obj = sim.add(model.kind_for(sim), model.create(sim),
                          model.name_for(sim))
        self.resource_id_set(obj.id)
        if not pending.fails:
            model.after_create(sim, obj)
        return pending

    def check_create_complete(self, pending=None, *args):
        return self._done(pending)

    def _change(self, action: str, change) -> _Pending:
        """``change(sim, obj)`` in the store, unless a fault fails it."""
        sim = self._sim()
        obj = sim.obj()
        pending = self._pending(action)
        if obj is not None and not pending.fails:
            with self.simulated_cloud.lock:
                change(sim, obj)
        return pending

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        def update(sim, obj):
            changes = self._model().update(sim, obj, dict(prop_diff))
            if changes:
                self.simulated_cloud.store.update(obj.id, **changes)
        return self._change(self.UPDATE,
                            update if prop_diff else lambda sim, obj: None)

    def check_update_complete(self, pending=None, *args):
        return self._done(pending)

    def handle_delete(self):
        def delete(sim, obj):
            self._model().delete(sim, obj)
            self.simulated_cloud.store.delete(obj.id)
        return self._change(self.DELETE, delete)

    def check_delete_complete(self, pending=None, *args):
        return self._done(pending)

    def handle_create_cancel(self, *args):
        return None

    def handle_update_cancel(self, *args):
        return None

    def handle_delete_cancel(self, *args):
        return None

    # What Heat asks of a live resource -----------------------------------
    def _resolve_attribute(self, name):
        schema = self.attributes_schema.get(name)
        type_name = getattr(schema, 'type', None)
        sim = self._sim()
        return self._model().resolve(sim, sim.obj(), name, type_name)

    def _show_resource(self):
        sim = self._sim()
        obj = sim.obj()
        return self._model().show(sim, obj) if obj is not None else None

    def get_live_resource_data(self):
        return self._show_resource()

    def parse_live_resource_data(self, resource_properties, resource_data):
        return dict(resource_properties)

    def get_reference_id(self):
        sim = self._sim()
        obj = sim.obj()
        if obj is not None:
            ref = self._model().reference(sim, obj)
            if ref is not models.NOTHING:
                return ref
        try:
            return super().get_reference_id()
        except lookups.NotSimulated:
            return heat_resource.Resource.get_reference_id(self)

    def needs_replace_failed(self):
        return True

    def prepare_for_replace(self):
        return None

    def restore_prev_rsrc(self, convergence=False):
        return None

    def state_set(self, action, status, reason='state changed', *args,
                  **kwargs):
        if reason == 'state changed':
            reason = SIMULATED_REASON
        return super().state_set(action, status, reason, *args, **kwargs)


def _action_handler(action):
    def handle(self, *args, **kwargs):
        return self._pending(action)
    return handle


def _action_check(self, pending=None, *args, **kwargs):
    return SimulatedResource._done(pending)


def _done(self, *args, **kwargs):
    return None


def _same_definition(self, defn, data):
    return defn


def simulated_class(real_cls, cloud):
    """Heat's plugin class with its service calls simulated."""
    attrs = {'simulated_cloud': cloud}
    for action in ACTIONS:
        if hasattr(real_cls, 'handle_%s' % action):
            attrs['handle_%s' % action] = _action_handler(action.upper())
            attrs['check_%s_complete' % action] = _action_check
    if hasattr(real_cls, 'handle_restore'):
        attrs['handle_restore'] = _same_definition
    for name in ('handle_delete_snapshot', 'handle_snapshot_delete',
                 'handle_preempt'):
        if hasattr(real_cls, name):
            attrs[name] = _done
    if hasattr(real_cls, 'check_delete_snapshot_complete'):
        attrs['check_delete_snapshot_complete'] = _action_check
    return type(real_cls.__name__, (SimulatedResource, real_cls), attrs)


def needs_simulation(cls, absent_services) -> bool:
    """Does the plugin talk to a service the local server lacks?"""
    if getattr(cls, 'simulated', False):
        return False
    module = cls.__module__ + '.'
    if module.startswith(HEAT_MODULES):
        # Heat's own resources run as shipped, on simulated clients (a
        # SwiftSignal waits for a signal in the simulated Swift).
        return False
    client = getattr(cls, 'default_client_name', None)
    if client is not None:
        return client in absent_services
    return module.startswith(SERVICE_MODULES)
