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
"""A remote stack's environment: its parent's, less the breakpoints."""

from unittest import mock

from heat.engine import environment
from heat.engine.resources.openstack.heat import remote_stack
import pytest

from heat_breakpoint.engine.check import remote_stacks
from heat_breakpoint.engine import seam
from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import registry

HAND_SET = {'resource_registry': {'resources': {
    'c': {'hooks': 'pre-create'}, 'v1': {'hooks': ['pre-delete']}}},
    'parameter_defaults': {'size': 3}}


def parent_env():
    return environment.Environment(registry.apply_to_environment(
        HAND_SET, breakpoints.parse_names(['v1', 'x/y'], None)))


def test_the_child_gets_the_hooks_set_by_hand_only():
    child = remote_stacks.RemoteEnvironment(environment)\
        .get_child_environment(parent_env(), {'flavor': 'small'})
    env = child.user_env_as_dict()
    assert env['parameter_defaults'] == {'size': 3}
    assert env['parameters'] == {'flavor': 'small'}
    assert env['resource_registry']['resources'] == {
        'c': {'hooks': 'pre-create'}, 'v1': {'hooks': ['pre-delete']}}


def test_nested_stacks_keep_them():
    """Only the remote stack's view of the module changes."""
    child = environment.get_child_environment(parent_env(), {})
    assert registry.from_environment(child.user_env_as_dict())


def test_an_unreadable_marker_is_dropped_and_the_hooks_stay():
    env = dict(HAND_SET, parameter_defaults={'size': 3, registry.MARKER: 7})
    child = remote_stacks.without_breakpoints(environment.Environment(env))
    assert child.user_env_as_dict()['parameter_defaults'] == {'size': 3}
    assert child.user_env_as_dict()['resource_registry']['resources'][
        'c'] == {'hooks': 'pre-create'}


def test_disabled_the_child_gets_everything_as_stock():
    with mock.patch.object(remote_stacks.cfg.CONF, 'breakpoint') as group:
        group.enabled = False
        child = remote_stacks.RemoteEnvironment(environment)\
            .get_child_environment(parent_env(), {})
    assert registry.from_environment(child.user_env_as_dict())


def test_the_seam_refuses_another_signature():
    def get_child_environment(parent_env, child_params):
        pass
    with mock.patch.object(remote_stack, 'environment', environment):
        seam._check_remote_stack()
        with mock.patch.object(environment, 'get_child_environment',
                               get_child_environment):
            with pytest.raises(seam.IncompatibleHeat,
                               match='get_child_environment'):
                seam._check_remote_stack()
