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
"""A remote stack (``OS::Heat::Stack``) is another stack tree.

It takes none of its parent's breakpoints: Heat copies its parent's
environment into it, hooks and marker, and they must not come along. The
local server runs the remote stack through its own API, as a cloud would.
"""

import json

from heatclient_ext.v1 import manager as bp_v1
from tests.functional import test_engine
from tests.functional import utils


def _test_resource(value):
    return {'type': 'OS::Heat::TestResource', 'properties': {'value': value}}


def parent(child_resources, remote_after=None):
    """``v1`` and a remote stack of ``child_resources``."""
    child = {'heat_template_version': '2021-04-16',
             'resources': {name: _test_resource(name)
                           for name in child_resources}}
    remote = {'type': 'OS::Heat::Stack',
              'properties': {'template': json.dumps(child)}}
    if remote_after:
        remote['depends_on'] = remote_after
    return {'heat_template_version': '2021-04-16',
            'resources': {'v1': _test_resource('v1'), 'remote': remote}}


def child_of(heat, stack_name):
    """The remote stack, once its parent knows it."""
    remote = heat.resources.get(stack_name, 'remote')
    if not remote.physical_resource_id:
        return None
    return heat.stacks.get(remote.physical_resource_id)


def test_a_child_without_the_resource_is_not_refused(heat, stack_name):
    """The parent's breakpoint names no resource of the child: no matter."""
    heat.stacks.create(stack_name=stack_name, template=parent(['c']),
                       environment=test_engine.breakpoint_env('v1'))
    test_engine.wait_held(heat, stack_name, 'v1')
    utils.wait_resource(heat, stack_name, 'remote', 'CREATE_COMPLETE')
    child = child_of(heat, stack_name)
    assert child.stack_status == 'CREATE_COMPLETE'
    env = heat.stacks.environment(child.id)
    assert 'heat_breakpoints' not in env.get('parameter_defaults', {}), env
    bp_v1.BreakpointManager(heat).continue_(stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')


def test_a_namesake_in_the_child_does_not_hold(heat, stack_name):
    """After continue in the parent, the child's v1 does not hold.

    The hooks a user set by hand still go along, as in stock Heat.
    """
    env = test_engine.breakpoint_env('v1', env={'resource_registry': {
        'resources': {'c': {'hooks': 'pre-create'}}}})
    heat.stacks.create(stack_name=stack_name,
                       template=parent(['v1', 'c'], remote_after='v1'),
                       environment=env)
    test_engine.wait_held(heat, stack_name, 'v1')
    bp_v1.BreakpointManager(heat).continue_(stack_name)
    utils.wait_resource(heat, stack_name, 'remote', 'CREATE_IN_PROGRESS')
    child = utils.wait_for(lambda: child_of(heat, stack_name), 30,
                           what='the remote stack')
    utils.wait_resource(heat, child.id, 'v1', 'CREATE_COMPLETE')
    # c waits on the stock hook its parent's environment passed on.
    utils.wait_for(lambda: heat.resources.get(child.id, 'c')
                   .resource_status == 'INIT_COMPLETE' and [
                       ev for ev in utils.events(heat, child.id, 'c')
                       if 'paused until Hook pre-create' in
                       (ev.resource_status_reason or '')], 30,
                   what='c held by the stock hook')
    assert child.stack_status == 'CREATE_IN_PROGRESS'
    heat.resources.signal(child.id, 'c', data={'unset_hook': 'pre-create'})
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE', timeout=90)
