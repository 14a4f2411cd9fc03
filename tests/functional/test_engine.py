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
"""The engine plugin on the real local Heat (convergence engine)."""

import json
import os

import yaml

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons
from heat_breakpoint.model import registry
from tests.functional import conftest
from tests.functional import utils

TEMPLATES = os.path.join(os.path.dirname(__file__), 'templates')
SECRET = 'hunter2-very-secret'


def template(name):
    with open(os.path.join(TEMPLATES, name)) as f:
        return yaml.safe_load(f)


def template_files(*names):
    return {name: open(os.path.join(TEMPLATES, name)).read()
            for name in names}


def breakpoint_env(*names, actions=None, env=None):
    return registry.apply_to_environment(
        env or {}, breakpoints.parse_names(names, actions))


def create(hc, name, tmpl, *bps, files=None, actions=None, **kwargs):
    hc.stacks.create(stack_name=name, template=template(tmpl),
                     files=files or {},
                     environment=breakpoint_env(*bps, actions=actions),
                     **kwargs)


def create_then_delete(hc, name, tmpl, *bps):
    """Create the stack with BPS before their delete; once up, delete it."""
    create(hc, name, tmpl, *bps, actions=['delete'])
    utils.wait_stack(hc, name, 'CREATE_COMPLETE')
    hc.stacks.delete(name)


def wait_held(hc, stack, name, status='CREATE_IN_PROGRESS', timeout=60):
    def held():
        rsrc = hc.resources.get(stack, name)
        return (rsrc.resource_status == status and
                reasons.parse_held(rsrc.resource_status_reason) and rsrc)
    return utils.wait_for(held, timeout, what='%s held' % name)


def signal_release(hc, stack, name, hook='pre-create', how='continue'):
    hc.resources.signal(stack, name, data={'unset_hook': hook,
                                           protocol.SIGNAL_KEY: how})


def complete_events(hc, stack, name, action='CREATE'):
    return [e for e in hc.events.list(stack, resource_name=name)
            if e.resource_status == '%s_COMPLETE' % action]


def assert_created_once(hc, stack, names):
    for name in names:
        assert len(complete_events(hc, stack, name)) == 1, name


def test_create_holds_breakpoint_and_its_dependents_only(heat_server, heat,
                                                         stack_name):
    create(heat, stack_name, 'two_branches.yaml', 'a2')
    held = wait_held(heat, stack_name, 'a2')
    utils.wait_resource(heat, stack_name, 'b3', 'CREATE_COMPLETE')

    assert held.physical_resource_id in ('', None)
    assert reasons.parse_held(held.resource_status_reason) == {
        'name': 'a2', 'action': 'CREATE', 'hook': 'pre-create'}
    found = utils.resources(heat, stack_name)
    assert found['a1'].resource_status == 'CREATE_COMPLETE'
    assert found['a3'].resource_status == 'INIT_COMPLETE'
    assert {found[n].resource_status for n in ('b1', 'b2', 'b3')} == {
        'CREATE_COMPLETE'}
    assert utils.stack_status(heat, stack_name) == 'CREATE_IN_PROGRESS'

    hit = [e for e in heat.events.list(stack_name, resource_name='a2')
           if reasons.parse_held(e.resource_status_reason)]
    assert len(hit) == 1
    details = heat.events.get(stack_name, 'a2', hit[0].id)
    props = details.resource_properties
    assert props['breakpoint'] == 'a2'
    assert props['action'] == 'CREATE'
    assert props['properties']['salt'] == '******'  # derived: whole

    # The stock command releases a breakpoint.
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'hook', 'clear', stack_name, 'a2')
    assert code == 0, err
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    assert_created_once(heat, stack_name,
                        ['a1', 'a2', 'a3', 'b1', 'b2', 'b3'])
    released = [e.resource_status_reason
                for e in heat.events.list(stack_name, resource_name='a2')]
    assert reasons.released('a2', protocol.RELEASE_HOOK_CLEAR) in released
    # The hidden parameter's value appears in no event and no answer.
    for event in heat.events.list(stack_name):
        if event.resource_name == stack_name:
            continue
        shown = heat.events.get(stack_name, event.resource_name, event.id)
        assert SECRET not in str(shown.to_dict())
    for rsrc in heat.resources.list(stack_name):
        shown = heat.resources.get(stack_name, rsrc.resource_name)
        assert SECRET not in str(shown.to_dict())
    assert SECRET not in str(heat.stacks.get(stack_name).to_dict())


def test_release_with_our_signal_creates_each_resource_once(
        heat, stack_name):
    create(heat, stack_name, 'chain.yaml', 'B')
    wait_held(heat, stack_name, 'B')
    before = utils.resources(heat, stack_name)['A'].physical_resource_id
    signal_release(heat, stack_name, 'B')
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    assert_created_once(heat, stack_name, 'ABCD')
    after = utils.resources(heat, stack_name)['A'].physical_resource_id
    assert before == after


def test_update_holds_changed_and_added_resources(heat, stack_name):
    create(heat, stack_name, 'chain.yaml')
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')

    tmpl = template('chain.yaml')
    tmpl['resources']['E'] = {'type': 'OS::Heat::TestResource',
                              'properties': {'value': 'new'}}
    heat.stacks.update(stack_name, template=tmpl,
                       parameters={'suffix': 'two'},
                       environment=breakpoint_env('A', 'E'))
    held_a = wait_held(heat, stack_name, 'A', 'UPDATE_IN_PROGRESS')
    held_e = wait_held(heat, stack_name, 'E', 'CREATE_IN_PROGRESS')
    assert held_e.physical_resource_id in ('', None)
    assert reasons.parse_held(held_a.resource_status_reason)['hook'] == \
        'pre-update'
    # A's dependents wait; nothing has been updated yet.
    assert not complete_events(heat, stack_name, 'B', 'UPDATE')

    signal_release(heat, stack_name, 'A', 'pre-update')
    signal_release(heat, stack_name, 'E', 'pre-create')
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')
    outputs = heat.stacks.get(stack_name).outputs
    assert [o['output_value'] for o in outputs] == ['two']


def test_delete_breakpoint_holds_before_delete(heat, stack_name):
    create_then_delete(heat, stack_name, 'chain.yaml', 'C')
    wait_held(heat, stack_name, 'C', 'DELETE_IN_PROGRESS')
    utils.wait_resource(heat, stack_name, 'D', 'DELETE_COMPLETE')
    found = utils.resources(heat, stack_name)
    # C's requirements wait for it, in reverse order.
    assert found['B'].resource_status == 'CREATE_COMPLETE'
    assert found['A'].resource_status == 'CREATE_COMPLETE'
    signal_release(heat, stack_name, 'C', 'pre-delete')

    def gone():
        return stack_name not in [s.stack_name for s in heat.stacks.list()]
    utils.wait_for(gone, 60, what='stack deleted')


def test_nested_breakpoint_two_levels_deep(heat, stack_name):
    create(heat, stack_name, 'nested_root.yaml', 'outer/inner/leaf',
           files=template_files('level1.yaml', 'level2.yaml'))

    def leaf_held():
        for rsrc in heat.resources.list(stack_name, nested_depth=3):
            if (rsrc.resource_name == 'leaf' and
                    reasons.parse_held(rsrc.resource_status_reason)):
                return rsrc
    leaf = utils.wait_for(leaf_held, 60, what='outer/inner/leaf held')
    assert leaf.resource_status == 'CREATE_IN_PROGRESS'
    assert utils.stack_status(heat, stack_name) == 'CREATE_IN_PROGRESS'
    nested_stack = [link['href'] for link in leaf.links
                    if link['rel'] == 'stack'][0].split('/stacks/')[1]
    signal_release(heat, nested_stack, 'leaf')
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')


def test_native_hooks_keep_stock_behaviour(heat_server, heat, stack_name):
    env = {'resource_registry': {'resources': {
        'B': {'hooks': 'pre-create'}}}}
    heat.stacks.create(stack_name=stack_name,
                       template=template('chain.yaml'), environment=env)

    def paused():
        return [e for e in heat.events.list(stack_name)
                if e.resource_name == 'B' and e.resource_status_reason ==
                'CREATE paused until Hook pre-create is cleared']
    utils.wait_for(paused, 60, what='native hook reached')
    # Stock Heat shows a hooked resource as not started.
    assert heat.resources.get(stack_name, 'B').resource_status == \
        'INIT_COMPLETE'
    code, out, err = conftest.run_openstack(
        heat_server, 'stack', 'hook', 'clear', stack_name, 'B')
    assert code == 0, err
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')


def test_hits_and_releases_are_notified(heat_server, heat, stack_name):
    create(heat, stack_name, 'chain.yaml', 'B')
    wait_held(heat, stack_name, 'B')
    signal_release(heat, stack_name, 'B', how='clear')
    stack = utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')

    def notifications(event_type):
        found = []
        with open(heat_server.log_file) as log:
            for line in log:
                marker = 'notification.orchestration.%s ' % event_type
                if marker in line:
                    body = json.loads(line[line.index('{'):])
                    if body['payload']['stack_id'] == stack.id:
                        found.append(body)
        return found
    reached = utils.wait_for(lambda: notifications('breakpoint.reached'),
                             10, what='reached notification')
    released = notifications('breakpoint.released')
    assert reached[0]['event_type'] == 'orchestration.breakpoint.reached'
    assert reached[0]['payload']['resource_path'] == 'B'
    assert reached[0]['payload']['action'] == 'CREATE'
    assert reached[0]['payload']['breakpoint'] == 'B'
    assert released[0]['payload']['released_by'] == 'clear'
