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

from heat_breakpoint.model import reasons
from heatclient_ext.v1 import manager as bp_v1
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


def create_held(heat, stack, tmpl, *bps):
    """Create the stack with BPS; wait until the first alone is held."""
    test_engine.create(heat, stack, tmpl, *bps)
    wait_held_set(heat, stack, bps[:1])


def continue_until_gone(heat_server, heat, stack):
    """Continue a held delete; wait until Heat lists the stack no more."""
    osc(heat_server, 'continue', stack)
    utils.wait_for(lambda: stack not in
                   {s.stack_name for s in heat.stacks.list()}, 60,
                   what='stack deleted')


def physical_ids(heat, stack):
    return {r.resource_name: r.physical_resource_id
            for r in heat.resources.list(stack)}


def test_step_through_a_chain(heat_server, heat, stack_name):
    create_held(heat, stack_name, 'chain.yaml', 'B')
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
    create_held(heat, stack_name, 'diamond.yaml', 'A')
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
    continue_until_gone(heat_server, heat, stack_name)


def test_continue_to_set_and_clear(heat_server, heat, stack_name):
    create_held(heat, stack_name, 'chain.yaml', 'A', 'B', 'C')
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


def held_paths(heat, stack):
    found = set()
    for r in heat.resources.list(stack, nested_depth=3):
        held = reasons.parse_held(r.resource_status_reason)
        if held:
            found.add(held['name'])
    return found


def test_step_into_and_out_of_nested_stacks(heat_server, heat, stack_name):
    test_engine.create(heat, stack_name, 'nested_step_root.yaml', 'first',
                       files=test_engine.template_files('level1.yaml',
                                                        'level2.yaml'))
    expected = ['first', 'outer', 'outer/inner', 'outer/inner/leaf',
                'outer/inner/after', 'last']
    utils.wait_for(lambda: held_paths(heat, stack_name) == {expected[0]},
                   60, what='first held')
    for now, after in zip(expected, expected[1:]):
        osc(heat_server, 'step', stack_name, now)
        utils.wait_for(
            lambda: held_paths(heat, stack_name) == {after}, 60,
            what='%s held after stepping from %s' % (after, now))
    osc(heat_server, 'step', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')


def test_two_clients_stepping_at_once_make_one_step(heat_server, heat,
                                                    stack_name):
    import threading
    create_held(heat, stack_name, 'chain.yaml', 'B')
    results = []

    def step():
        results.append(conftest.run_openstack(
            heat_server, 'stack', 'breakpoint', 'step', stack_name, 'B'))
    threads = [threading.Thread(target=step) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wait_held_set(heat, stack_name, ['C'])
    steps = [e for e in heat.events.list(stack_name)
             if e.resource_status_reason == reasons.released('B', 'step')]
    assert len(steps) == 1
    assert sum(code == 0 for code, _o, _e in results) >= 1
    osc(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    test_engine.assert_created_once(heat, stack_name, 'ABCD')


def test_set_during_a_delete_holds_where_the_list_says(heat_server, heat,
                                                       stack_name):
    # The environment holds C before its delete (D is deleted first).
    test_engine.create_then_delete(heat, stack_name, 'chain.yaml', 'C')
    test_engine.wait_held(heat, stack_name, 'C', 'DELETE_IN_PROGRESS')
    manager = bp_v1.BreakpointManager(heat)
    # A is not deleted yet (it waits for B, which waits for C).
    assert manager.set(stack_name, 'A') == 'armed'
    armed = [(row['resource'], row['state'], row['action'])
             for row in manager.list(stack_name) if row['resource'] == 'A']
    assert armed == [('A', 'armed', 'DELETE')]
    reasons_seen = [e.resource_status_reason
                    for e in heat.events.list(stack_name)]
    assert any('Breakpoint set on A' in (r or '') for r in reasons_seen)
    manager.clear(stack_name, 'C')  # releases C only
    # What the list showed holds: A, after B went.
    test_engine.wait_held(heat, stack_name, 'A', 'DELETE_IN_PROGRESS')
    assert utils.resources(heat, stack_name)['B'].resource_status == \
        'DELETE_COMPLETE'
    continue_until_gone(heat_server, heat, stack_name)


def test_set_holds_in_a_delete_started_without_breakpoints(heat_server,
                                                           heat,
                                                           stack_name):
    # No breakpoint in the environment: the set is all there is.
    test_engine.create(heat, stack_name, 'slow_delete_chain.yaml')
    manager = bp_v1.BreakpointManager(heat)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    heat.stacks.delete(stack_name)
    utils.wait_for(lambda: utils.resources(heat, stack_name)[
        'D'].resource_status == 'DELETE_IN_PROGRESS', 30,
        what='D deleting')
    assert manager.set(stack_name, 'B') == 'armed'
    armed = [(row['resource'], row['state'], row['action'])
             for row in manager.list(stack_name) if row['resource'] == 'B']
    assert armed == [('B', 'armed', 'DELETE')]
    test_engine.wait_held(heat, stack_name, 'B', 'DELETE_IN_PROGRESS')
    assert utils.resources(heat, stack_name)['C'].resource_status == \
        'DELETE_COMPLETE'
    assert utils.resources(heat, stack_name)['A'].resource_status == \
        'CREATE_COMPLETE'
    continue_until_gone(heat_server, heat, stack_name)


def why_of(manager, stack, name):
    return [row.get('why') for row in manager.list(stack)
            if row['resource'] == name and row['state'] != 'held']


def test_run_to_target_is_named_after_a_step(heat_server, heat, stack_name):
    create_held(heat, stack_name, 'slow_b_chain.yaml', 'A')
    manager = bp_v1.BreakpointManager(heat)
    osc(heat_server, 'continue', stack_name, '--to', 'C')
    utils.wait_for(lambda: utils.resources(heat, stack_name)[
        'B'].resource_status == 'CREATE_IN_PROGRESS', 30, what='B running')
    # B runs (it takes a while): hold it after, then step from there to C.
    assert manager.set(stack_name, 'B', when='after') == 'armed'
    wait_held_set(heat, stack_name, ['B'])
    osc(heat_server, 'step', stack_name, 'B')
    wait_held_set(heat, stack_name, ['C'])
    assert why_of(manager, stack_name, 'A') == ['run to C']
    osc(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')


def test_a_step_keeps_the_after_rule_set_there(heat_server, heat,
                                               stack_name):
    create_held(heat, stack_name, 'chain.yaml', 'A')
    manager = bp_v1.BreakpointManager(heat)
    assert manager.set(stack_name, 'B', when='after') == 'armed'
    osc(heat_server, 'step', stack_name, 'A')  # arms B before
    test_engine.wait_held(heat, stack_name, 'B')
    held = reasons.parse_held(utils.resources(heat, stack_name)[
        'B'].resource_status_reason)
    assert held.get('when', 'before') == 'before', held
    whens = {(row['state'], row.get('when')) for row in
             manager.list(stack_name) if row['resource'] == 'B'}
    assert ('armed', 'after') in whens, whens
    osc(heat_server, 'step', stack_name, 'B')
    # B's create runs, then its after-rule holds it (C not started).
    utils.wait_for(lambda: utils.resources(heat, stack_name)[
        'B'].resource_status == 'CREATE_COMPLETE' and
        held_names(heat, stack_name) == {'B'}, 60, what='B held after')
    assert utils.resources(heat, stack_name)['C'].resource_status in (
        'INIT_COMPLETE', '')
    osc(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')


def test_set_holds_in_a_create_started_without_breakpoints(heat_server,
                                                           heat,
                                                           stack_name):
    test_engine.create(heat, stack_name, 'slow_b_chain.yaml')
    # Heat stores the rows one by one: B may not be listed yet.
    utils.wait_for(lambda: getattr(utils.resources(heat, stack_name).get(
        'B'), 'resource_status', None) == 'CREATE_IN_PROGRESS', 30,
        what='B running')
    manager = bp_v1.BreakpointManager(heat)
    assert manager.set(stack_name, 'C') == 'armed'
    wait_held_set(heat, stack_name, ['C'])
    assert utils.resources(heat, stack_name)['D'].resource_status in (
        'INIT_COMPLETE', '')
    osc(heat_server, 'continue', stack_name)
    utils.wait_stack(heat, stack_name, 'CREATE_COMPLETE')
    test_engine.assert_created_once(heat, stack_name, 'ABCD')
