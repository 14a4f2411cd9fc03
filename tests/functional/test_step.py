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
"""Step through the graph, run to completion, arm and disarm, in the SAME
operation, on the real local Heat through the real OSC commands."""

from heat_breakpoint import reasons
from tests.functional import conftest
from tests.functional import test_engine
from tests.functional import utils


def osc(server, *argv):
    code, out, err = conftest.run_openstack(server, 'stack', 'breakpoint',
                                            *argv)
    assert code == 0, err
    return out


def held_names(heat, stack):
    return {r.resource_name for r in heat.resources.list(stack)
            if reasons.parse_held(r.resource_status_reason)}


def wait_held_set(heat, stack, names, timeout=60):
    return utils.wait_for(lambda: held_names(heat, stack) == set(names),
                          timeout, what='held %s' % sorted(names))


def physical_ids(heat, stack):
    return {r.resource_name: r.physical_resource_id
            for r in heat.resources.list(stack)}


def test_step_through_a_chain(heat_server, heat, stack_name):
    test_engine.create(heat, stack_name, 'chain.yaml', 'B')
    wait_held_set(heat, stack_name, ['B'])
    traversal_events = len(heat.events.list(stack_name))

    osc(heat_server, 'step', stack_name, 'B')
    wait_held_set(heat, stack_name, ['C'])
    assert utils.resources(heat, stack_name)['B'].resource_status == \
        'CREATE_COMPLETE'
    ids = physical_ids(heat, stack_name)

    osc(heat_server, 'step', stack_name)
    wait_held_set(heat, stack_name, ['D'])
    osc(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')

    # One operation: nothing restarted, nothing recreated.
    test_engine.assert_created_once(heat, stack_name, 'ABCD')
    final = physical_ids(heat, stack_name)
    assert all(final[n] == ids[n] for n in 'AB')
    events = heat.events.list(stack_name)
    assert len(events) > traversal_events
    started = [e for e in events if e.resource_name == stack_name and
               e.resource_status_reason == 'Stack CREATE started']
    assert len(started) == 1
    released = [e.resource_status_reason for e in events]
    assert reasons.released('B', 'step') in released
    assert reasons.released('C', 'step') in released
    assert reasons.released('D', 'continue') in released


def test_step_through_a_diamond(heat_server, heat, stack_name):
    test_engine.create(heat, stack_name, 'diamond.yaml', 'A')
    wait_held_set(heat, stack_name, ['A'])
    osc(heat_server, 'step', stack_name, 'A')
    wait_held_set(heat, stack_name, ['B', 'C'])
    osc(heat_server, 'step', stack_name)
    wait_held_set(heat, stack_name, ['D'])
    osc(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    test_engine.assert_created_once(heat, stack_name, 'ABCD')


def test_step_during_update_and_delete(heat_server, heat, stack_name):
    test_engine.create(heat, stack_name, 'chain.yaml', 'B',
                       actions=['update', 'delete'])
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')

    heat.stacks.update(stack_name, existing=True,
                       parameters={'suffix': 'two'})
    test_engine.wait_held(heat, stack_name, 'B', 'UPDATE_IN_PROGRESS')
    osc(heat_server, 'step', stack_name, 'B')
    held = test_engine.wait_held(heat, stack_name, 'C', 'UPDATE_IN_PROGRESS')
    assert reasons.parse_held(held.resource_status_reason)['name'] == 'C'
    osc(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'UPDATE_COMPLETE')

    heat.stacks.delete(stack_name)
    test_engine.wait_held(heat, stack_name, 'B', 'DELETE_IN_PROGRESS')
    osc(heat_server, 'step', stack_name, 'B')
    # Delete walks the graph backwards: B's requirement holds next.
    test_engine.wait_held(heat, stack_name, 'A', 'DELETE_IN_PROGRESS')
    osc(heat_server, 'continue', stack_name)
    utils.wait_for(lambda: stack_name not in
                   {s.stack_name for s in heat.stacks.list()}, 60,
                   what='stack deleted')


def test_continue_to_set_and_clear(heat_server, heat, stack_name):
    test_engine.create(heat, stack_name, 'chain.yaml', 'A', 'B', 'C')
    wait_held_set(heat, stack_name, ['A'])
    # Disarm B for this operation; arm D, which no breakpoint names.
    out = osc(heat_server, 'clear', stack_name, 'B', '-f', 'value')
    assert out.split() == ['B', 'disarmed']
    osc(heat_server, 'set', stack_name, 'D')
    osc(heat_server, 'step', stack_name, 'A')
    # A's next resource was B: stepping holds there although disarmed.
    wait_held_set(heat, stack_name, ['B'])
    osc(heat_server, 'continue', stack_name, '--to', 'D')
    wait_held_set(heat, stack_name, ['D'])  # C's breakpoint is ignored
    osc(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    test_engine.assert_created_once(heat, stack_name, 'ABCD')
