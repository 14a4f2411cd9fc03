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
"""The simulated types' registry: explicit, checked, the one source.

A type is served if and only if its class is listed in
:data:`registry.TYPES`; what the rest of the simulated cloud knows of a
type (build times, failure words, look-ups, the ``--cloud`` file's
sections) comes from that class, and a declaration made twice or wrong
is refused when the registry is built.
"""

import importlib
import inspect
import pkgutil

import pytest

from heat_breakpoint.server import cloud
from heat_breakpoint.server.cloud import compute
from heat_breakpoint.server.cloud import faults
from heat_breakpoint.server.cloud import inventory
from heat_breakpoint.server.cloud import models
from heat_breakpoint.server.cloud import registry
from heat_breakpoint.server.cloud import timing

REGISTRY = registry.REGISTRY


def _declared_types():
    """Every public SimulatedType subclass of the cloud package's modules."""
    found = set()
    for info in pkgutil.iter_modules(cloud.__path__):
        module = importlib.import_module('%s.%s' % (cloud.__name__,
                                                    info.name))
        for name, member in vars(module).items():
            if (inspect.isclass(member) and not name.startswith('_') and
                    issubclass(member, models.SimulatedType) and
                    member is not models.SimulatedType and
                    member.__module__ == module.__name__):
                found.add(member)
    return found


def test_every_declared_type_is_registered_once():
    assert len(registry.TYPES) == len(set(registry.TYPES))
    assert _declared_types() == set(registry.TYPES)


@pytest.mark.parametrize('cls', registry.TYPES, ids=lambda c: c.__name__)
def test_each_registered_type_declares_what_it_must(cls):
    assert isinstance(cls.kind, str) and cls.kind
    if cls.type_name is None:
        # A kind only looked up: it says how Heat finds one.
        assert cls.lookups or cls.section or cls.entity or cls.constraints
    else:
        assert type(REGISTRY.model_for(cls.type_name)) is cls
    for table in (cls.build_times, cls.failures, cls.refusals):
        assert set(table) <= set(models.ACTIONS)
    assert all(0 <= low <= high for low, high in cls.build_times.values())
    assert all(isinstance(kind, str) and isinstance(text, str)
               for kind, text in cls.refusals.values())


def test_each_registered_type_name_is_one_heat_offers():
    from heat.engine import resources
    resources.initialise()
    offered = resources.global_env().registry._registry
    assert [name for name in REGISTRY.type_names
            if name not in offered] == []


@pytest.mark.parametrize('extra, words', [
    (type('Twin', (models.SimulatedType,), {
        'type_name': 'OS::Nova::Server', 'kind': 'server'}),
     'type OS::Nova::Server is declared twice: by Server and by Twin'),
    (type('Getter', (models.SimulatedType,), {
        'kind': 'thing', 'lookups': {'get_server': False}}),
     'look-up get_server is declared twice'),
    (type('Listed', (models.SimulatedType,), {
        'kind': 'thing', 'section': 'flavors'}),
     'section flavors is declared twice'),
    (type('Words', (models.SimulatedType,), {
        'kind': 'flavor', 'entity': 'Flavour'}),
     'what look-ups find of kind flavor is declared twice: by Flavor and '
     'by Words'),
    (type('Constrained', (models.SimulatedType,), {
        'kind': 'thing', 'constraints': ('cinder.vtype',)}),
     'constraint cinder.vtype is declared twice'),
])
def test_a_declaration_made_twice_is_refused(extra, words):
    with pytest.raises(registry.RegistryError) as caught:
        registry.Registry(registry.TYPES + (extra,))
    assert words in str(caught.value)


@pytest.mark.parametrize('attrs, words', [
    ({'type_name': 'OS::X::Y'}, 'Bad declares no kind'),
    ({'kind': 'thing'}, 'Bad declares neither a type_name nor how Heat '
                        'finds one'),
    ({'type_name': 'OS::X::Y', 'kind': 'y',
      'build_times': {'BUILD': (1.0, 2.0)}},
     'Bad: build_times of unknown actions BUILD'),
    ({'type_name': 'OS::X::Y', 'kind': 'y',
      'build_times': {'CREATE': (2.0, 1.0)}},
     'Bad: build time of CREATE must be (low, high)'),
    ({'type_name': 'OS::X::Y', 'kind': 'y',
      'failures': {'create': 'oops'}},
     'Bad: failures of unknown actions create'),
    ({'type_name': 'OS::X::Y', 'kind': 'y',
      'refusals': {'CREATE': 'Forbidden'}},
     'Bad: refusal of CREATE must be (error class name, message)'),
])
def test_a_wrong_declaration_is_one_line_naming_the_class(attrs, words):
    bad = type('Bad', (models.SimulatedType,), attrs)
    with pytest.raises(registry.RegistryError) as caught:
        registry.Registry([bad])
    assert words in str(caught.value)
    assert '\n' not in str(caught.value)


def test_something_not_a_simulated_type_is_refused():
    with pytest.raises(registry.RegistryError, match='not a SimulatedType'):
        registry.Registry([object])


class Widget(models.SimulatedType):
    """Declared, imported, but in no registry."""

    type_name = 'OS::Test::Widget'
    kind = 'widget'
    build_times = {'CREATE': (50.0, 60.0)}
    failures = {'CREATE': 'the widget broke'}
    lookups = {'get_widget': True}
    section = 'widgets'


def test_a_type_missing_from_the_registry_is_not_served():
    # Declaring (and importing) a class registers nothing.
    assert type(REGISTRY.model_for('OS::Test::Widget')) is \
        models.SimulatedType
    assert REGISTRY.build_time('OS::Test::Widget', 'CREATE') == \
        models.BUILD_TIMES['CREATE']
    assert REGISTRY.failure('OS::Test::Widget', 'CREATE') is None
    assert 'get_widget' not in REGISTRY.lookups
    assert 'widgets' not in inventory.SECTIONS
    # A registry without the server's class serves it from its schemas.
    without = registry.Registry(
        [cls for cls in registry.TYPES if cls is not compute.Server])
    assert type(without.model_for('OS::Nova::Server')) is \
        models.SimulatedType
    assert 'get_server' not in without.lookups
    assert 'servers' not in without.sections
    assert without.entity('server') == 'Server'
    assert without.refusal('OS::Nova::Server', 'CREATE') is None
    # And one with the widget serves everything its class declares.
    served = registry.Registry(registry.TYPES + (Widget,))
    assert type(served.model_for('OS::Test::Widget')) is Widget
    assert served.build_time('OS::Test::Widget', 'CREATE') == (50.0, 60.0)
    assert served.build_time('OS::Test::Widget', 'DELETE') == \
        models.BUILD_TIMES['DELETE']
    assert served.failure('OS::Test::Widget', 'CREATE') == \
        'the widget broke'
    assert served.lookups['get_widget'] == ('widget', True)
    assert served.sections['widgets'] == 'widget'


def test_the_rest_of_the_cloud_reads_the_classes(monkeypatch):
    served = registry.Registry(registry.TYPES + (Widget,))
    monkeypatch.setattr(registry, 'REGISTRY', served)
    assert 50 <= timing.Timing().seconds('OS::Test::Widget', 'CREATE',
                                         'w') <= 60
    rule = faults.parse_rule({'type': 'OS::Test::*'}, 1)
    assert rule.failure_message('OS::Test::Widget', 'CREATE').startswith(
        'the widget broke (simulated fault: rule 1')
    # An action the class gives no words for has the general ones.
    assert 'failed to delete it' in rule.failure_message(
        'OS::Test::Widget', 'DELETE')


def test_an_inherited_declaration_counts_as_the_subclass_s():
    # An EC2 twin that inherits the OpenStack type's class declares what
    # look-ups find of its kind again: refused, so twins share a private
    # base instead (compute._ServerBase).
    twin = type('Ec2Server', (compute.Server,), {
        'type_name': 'AWS::EC2::Server'})
    with pytest.raises(registry.RegistryError,
                       match='kind server is declared twice: by Server and '
                             'by Ec2Server'):
        registry.Registry(registry.TYPES + (twin,))
