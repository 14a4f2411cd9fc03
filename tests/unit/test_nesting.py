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
"""``outer/inner`` breakpoints need ``outer`` to be a nested stack."""

import pytest

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import nesting

TEMPLATE = {'heat_template_version': '2018-08-31', 'resources': {
    'db': {'type': 'OS::Heat::TestResource'},
    'db_user': {'type': 'OS::Heat::RandomString'},
    'app_tier': {'type': 'app_tier.yaml'},
    'group': {'type': 'OS::Heat::ResourceGroup'},
    'custom': {'type': 'My::Custom::Thing'},
    'mapped': {'type': 'OS::Heat::None'},
    'bad': 'not a mapping',
}}


def check(names, envs=()):
    nesting.check_nested(breakpoints.parse_names(names),
                         nesting.resource_types(TEMPLATE), envs)


@pytest.mark.parametrize('names', [
    ['db'], ['app_tier/web'], ['group/0/x'], ['custom/x'], ['bad/x'],
    ['nothere/x'], ['app_*/web'], ['*/x'],
])
def test_accepted(names):
    check(names)


@pytest.mark.parametrize('names', [
    ['db/x'], ['db_user/a/b'], ['d*/x'],   # d*: db and db_user, both plain
])
def test_refused(names):
    with pytest.raises(breakpoints.BreakpointError,
                       match='is not a nested stack'):
        check(names)


def test_plain_resource_is_refused_naming_the_nested_stacks():
    with pytest.raises(breakpoints.BreakpointError) as raised:
        check(['db/x'])
    assert str(raised.value) == (
        "breakpoint 'db/x': 'db' is not a nested stack "
        "(OS::Heat::TestResource); nested stack resources: app_tier, bad, "
        "custom, group")


@pytest.mark.parametrize('env', [
    {'resource_registry': {'OS::Heat::None': 'mapped.yaml'}},
    {'resource_registry': {'OS::Heat::*': 'lib/heat/'}},
    {'resource_registry': {'resources': {
        'mapped': {'OS::Heat::None': 'mapped.yaml'}}}},
    {'resource_registry': {'resources': {
        'map*': {'OS::Heat::None': 'mapped.yaml'}}}},
])
def test_a_type_the_environment_maps_is_given_the_benefit_of_the_doubt(env):
    check(['mapped/x'], [env])
    with pytest.raises(breakpoints.BreakpointError):
        check(['mapped/x'], [{'resource_registry': {
            'resources': {'other': {'OS::Heat::None': 'mapped.yaml'}}}}])


def test_unknown_template_checks_nothing():
    nesting.check_nested(breakpoints.parse_names(['db/x']), None)


def test_template_without_nested_stacks():
    with pytest.raises(breakpoints.BreakpointError,
                       match='the template has no nested stack resources'):
        nesting.check_nested(
            breakpoints.parse_names(['a/b']),
            {'a': 'OS::Heat::None'})
