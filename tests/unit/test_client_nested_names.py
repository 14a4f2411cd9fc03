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
"""The client follows ``outer/inner`` through the files Heat will be sent."""

import pytest

from heat_breakpoint.model import breakpoints
from heatclient_ext import exceptions
from heatclient_ext.v1 import nested_names

TIER = ('heat_template_version: 2018-08-31\n'
        'resources:\n'
        '  db_server: {type: OS::Heat::TestResource}\n')


@pytest.fixture
def tree(tmp_path):
    """root.yaml declares db_tier: My::Tier; tiers/ holds the templates."""
    (tmp_path / 'root.yaml').write_text(
        'heat_template_version: 2018-08-31\n'
        'resources:\n'
        '  db_tier: {type: "My::Tier"}\n'
        '  plain: {type: OS::Heat::TestResource}\n')
    (tmp_path / 'tiers').mkdir()
    (tmp_path / 'tiers' / 'db.yaml').write_text(TIER)
    return tmp_path


def check(tree, name, *registries):
    types = nested_names.template_resource_names(str(tree / 'root.yaml'))
    files = [{'path': str(tree / 'tiers' / ('env%d.yaml' % i)),
              'env': {'resource_registry': registry}}
             for i, registry in enumerate(registries)]
    nested_names.check(breakpoints.parse_names([name]), types, files)


def refused(tree, name, *registries) -> str:
    with pytest.raises(exceptions.BreakpointCommandError) as caught:
        check(tree, name, *registries)
    return str(caught.value)


def test_a_type_mapped_to_a_template_beside_the_environment(tree):
    check(tree, 'db_tier/db_server', {'My::Tier': 'db.yaml'})
    assert refused(tree, 'db_tier/db_srever', {'My::Tier': 'db.yaml'}) == (
        "breakpoint 'db_tier/db_srever': 'db_srever' matches no resource "
        "of 'db_tier' (db.yaml); closest: db_server (resources: db_server)")


def test_an_alias_is_followed_and_a_later_file_wins(tree):
    (tree / 'tiers' / 'other.yaml').write_text(TIER.replace('db_', 'x_'))
    assert 'closest: x_server' in refused(
        tree, 'db_tier/x_srever', {'My::Tier': 'db.yaml'},
        {'My::Tier': 'My::Alias', 'My::Alias': 'other.yaml'})


def test_a_mapping_for_one_resource_wins_over_the_type_mapping(tree):
    (tree / 'tiers' / 'other.yaml').write_text(TIER.replace('db_', 'x_'))
    registry = {'My::Tier': 'db.yaml',
                'resources': {'db_tier': {'My::Tier': 'other.yaml'}}}
    check(tree, 'db_tier/x_server', registry)
    assert 'closest: x_server' in refused(tree, 'db_tier/db_server',
                                          registry)


@pytest.mark.parametrize('registry', [
    {},  # Heat's global environment may map it
    {'My::*': 'db.yaml', 'My::Tier': 'db.yaml'},  # Heat's to resolve
    {'My::Tier': 'db.yaml', 'resources': {'db_*': {'My::Tier': 'x.yaml'}}},
    {'My::Tier': 'https://example.com/db.yaml'},
    {'My::Tier': 'missing.yaml'},
    {'My::Tier': 'My::Loop', 'My::Loop': 'My::Tier'},
])
def test_what_only_heat_can_resolve_is_taken(tree, registry):
    check(tree, 'db_tier/anything', registry)


def test_a_type_mapped_inside_a_nested_stack_stops_below_the_root(tree):
    (tree / 'tiers' / 'db.yaml').write_text(
        TIER + '  inner: {type: "My::Inner"}\n')
    (tree / 'tiers' / 'inner.yaml').write_text(TIER)
    registry = {'My::Tier': 'db.yaml', 'My::Inner': 'inner.yaml'}
    assert "'nope' matches no resource of 'inner'" in refused(
        tree, 'db_tier/inner/nope', registry)
    deep = dict(registry, resources={
        'db_tier': {'inner': {'My::Inner': 'db.yaml'}}})
    check(tree, 'db_tier/inner/nope', deep)
    hooks_only = dict(registry, resources={
        'db_tier': {'inner': {'hooks': ['pre-create']}}})
    assert "'nope' matches no resource of 'inner'" in refused(
        tree, 'db_tier/inner/nope', hooks_only)
