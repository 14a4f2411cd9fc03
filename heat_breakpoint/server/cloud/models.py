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
"""What a simulated service does with a resource: the models, by type.

Every simulated type has a model. :class:`Model` serves any type from its
schemas alone (the object's fields are its resolved properties; an
attribute is the property of the same name, or a value that says it is
simulated); the common types have models of their own
(:mod:`~heat_breakpoint.server.cloud.compute`,
:mod:`~heat_breakpoint.server.cloud.network`,
:mod:`~heat_breakpoint.server.cloud.volume`) whose values are consistent
with each other, as a server's addresses are its ports' addresses.
A model registers itself with :func:`model` for the types it serves.
"""

import re

from heat_breakpoint.server.cloud import values

_MODELS = {}
NOTHING = object()

# Inputs a service keeps to itself: never shown back as an attribute.
PRIVATE = re.compile(r'pass|secret|user_data|private_key|token|credential',
                     re.I)

_TYPE_OF = {'string': str, 'map': dict, 'list': list, 'integer': int,
            'boolean': bool}


def model(*type_names):
    """Class decorator: the model serves these resource types."""
    def register(cls):
        for name in type_names:
            _MODELS[name] = cls()
        return cls
    return register


def model_for(type_name: str) -> 'Model':
    return _MODELS.get(type_name) or Model()


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


class Model(object):
    """A service object from the type's schemas alone."""

    kind = None

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
