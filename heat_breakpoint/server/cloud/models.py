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
"""What the local server knows about a simulated type: one class.

A simulated type is a subclass of :class:`SimulatedType` in its
service's module (:mod:`~heat_breakpoint.server.cloud.compute`,
:mod:`~heat_breakpoint.server.cloud.network`,
:mod:`~heat_breakpoint.server.cloud.volume`...), listed once in
:mod:`~heat_breakpoint.server.cloud.registry`. Its class attributes say
what a real cloud's service does with it (how long an action takes, the
words of its failure and of its refusal, how Heat looks one up, its
section of the ``--cloud`` file) and its methods what the service makes
of it (the object's fields, its attributes). A type nobody declared is
served from its schemas alone by this base class; so the common types'
values are consistent with each other, as a server's addresses are its
ports' addresses.
"""

import re

from heat_breakpoint.server.cloud import values

NOTHING = object()

# Inputs a service keeps to itself: never shown back as an attribute.
PRIVATE = re.compile(r'pass|secret|user_data|private_key|token|credential',
                     re.I)

_TYPE_OF = {'string': str, 'map': dict, 'list': list, 'integer': int,
            'boolean': bool}

#: The actions of a resource a service runs (and a fault rule names).
ACTIONS = ('CREATE', 'UPDATE', 'DELETE', 'SUSPEND', 'RESUME', 'CHECK',
           'SNAPSHOT', 'RESTORE', 'ADOPT')
#: ``--realistic-times`` for an action of a type that gives none: (low,
#: high) seconds by action, ``'*'`` for the other actions.
BUILD_TIMES = {'CREATE': (0.5, 1.5), 'UPDATE': (0.5, 1.5),
               'DELETE': (0.5, 1.0), '*': (0.2, 0.5)}


def kind_of(type_name: str) -> str:
    """The store kind of a type nobody modelled: Heat's last name part."""
    last = type_name.split('::')[-1]
    return re.sub(r'(?<!^)(?=[A-Z])', '_', last).lower()


def as_declared(value, type_name):
    """A scalar where the schema declares a string, as a string."""
    if (type_name or '').lower() == 'string' and isinstance(
            value, (bool, int, float)):
        return str(value)
    return value


def fits(value, type_name) -> bool:
    """Is value of the attribute type a schema declares?"""
    wanted = _TYPE_OF.get((type_name or '').lower())
    if wanted is None:
        return value is not None
    if wanted is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, wanted)


class SimulatedType(object):
    """A simulated type: what the service does with it, and its words.

    Each subclass declares what it needs of these; the registry checks
    them once, at import.
    """

    #: The Heat resource type served (``OS::Nova::Server``); None for a
    #: kind of the cloud's objects that Heat looks up but no modelled
    #: type makes (an image, a Keystone role).
    type_name = None
    #: The kind of object it is in the store, and what look-ups find.
    kind = None
    #: ``--realistic-times``: (low, high) seconds by action; the others
    #: take :data:`BUILD_TIMES`.
    build_times = {}
    #: What the service says when an action fails (a fault rule's
    #: ``fail``), by action; else the fault rules' general words.
    failures = {}
    #: What the service answers when it refuses an action (``failure:
    #: refused``): (its client's error class name, the message), by action.
    refusals = {}
    # What the kind is to Heat's look-ups; one class of a kind declares
    # them (the registry refuses a second).
    #: Heat's word for a missing one (EntityNotFound's entity), when it is
    #: not the kind's words titled.
    entity = None
    #: The client plugin methods that find one: method -> whether it
    #: answers the ID (a getter answers the object).
    lookups = {}
    #: Heat's custom constraints whose kind is not their last name part.
    constraints = ()
    #: Its section of the ``--cloud`` file.
    section = None

    @classmethod
    def inventory_fields(cls, name) -> dict:
        """The fields a real cloud would show for one of this name."""
        return {}

    @classmethod
    def keep(cls, store, kind: str, object_id: str, name, origin: str,
             data: dict):
        """Add one the cloud has (an assumed one, or the file's).

        A kind whose objects come with others (a network, its subnet)
        adds them too; the object's row is returned.
        """
        return store.add(kind, object_id, name, origin, data)

    @classmethod
    def build_time(cls, action: str) -> tuple:
        return (cls.build_times.get(action) or BUILD_TIMES.get(action) or
                BUILD_TIMES['*'])

    def kind_for(self, sim) -> str:
        return self.kind or kind_of(sim.type_name)

    def name_for(self, sim) -> str:
        name = sim.props.get('name')
        return name if isinstance(name, str) and name else \
            sim.physical_name

    def create(self, sim) -> dict:
        """The new object's fields."""
        fields = {k: v for k, v in sim.props.items()
                  if not PRIVATE.search(k)}
        fields['status'] = 'ACTIVE'
        return fields

    def after_create(self, sim, obj) -> None:
        """What the object does once it exists (a server boots)."""

    def update(self, sim, obj, prop_diff: dict) -> dict:
        """The fields an update in place changes."""
        return {k: v for k, v in prop_diff.items() if not PRIVATE.search(k)}

    def delete(self, sim, obj) -> None:
        """Whatever else goes with the object (ports, attachments)."""

    def attribute(self, sim, obj, name: str):
        """A value of this model's own, or NOTHING."""
        return NOTHING

    def reference(self, sim, obj):
        """What get_resource gives, when it is not the resource's ID."""
        return NOTHING

    def resolve(self, sim, obj, name: str, type_name):
        """The attribute's value: modelled, a field, a shape, a marker."""
        if obj is None:
            return None
        value = self.attribute(sim, obj, name)
        if value is not NOTHING:
            return as_declared(value, type_name)
        if name == 'show':
            return self.show(sim, obj)
        field = as_declared(obj.get(name), type_name)
        if field is not None and fits(field, type_name):
            return field
        if type_name in (None, 'String'):
            shaped = values.by_name(name, sim.seed)
            if name in ('id', 'uuid'):
                shaped = obj.id
            if shaped is not None:
                return shaped
        return values.by_schema(type_name, name, sim.name)

    def show(self, sim, obj) -> dict:
        shown = {k: v for k, v in obj.items() if not PRIVATE.search(k)}
        shown.update(id=obj.id, name=obj.name)
        return shown
