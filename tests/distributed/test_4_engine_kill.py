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
"""Fault: kill -9 the heat-engine that parked a hold, start a new one.

A parked hold is rows in the database, not a thread, so nothing is lost:
the stack stays held, ``openstack stack breakpoint list`` shows it, and
``openstack stack breakpoint continue`` (the documented command) completes
it with every resource created once. This runs last among the tests of
the shared deployment, because it replaces one of its engines.
"""

import time

from tests.distributed import common

ENGINE_DOWN = 'Engine went down'


def test_kill_9_the_engine_holding_a_breakpoint(cluster):
    hc = cluster.client()
    t = common.tag()
    names = ['%s_%s' % (letter, t) for letter in 'abcd']
    stack = 'kill-%s' % t
    hc.stacks.create(stack_name=stack, template=common.chain(names),
                     environment=common.breakpoint_env(names[1]))

    def explain():
        return '\nengine errors:\n%s' % cluster.errors()

    common.wait_held_set(hc, stack, [names[1]], explain=explain)
    holder = common.engine_of(cluster, common.hold_line(names[1]))
    before = {r.resource_name: r for r in hc.resources.list(stack)}
    assert before[names[0]].resource_status == 'CREATE_COMPLETE'

    pids = cluster.engines[holder].group_pids()
    code = cluster.kill_engine(holder)
    assert code == -9, code
    replacement = cluster.start_engine()
    # Give the new engine's start-up (Heat resets stacks it believes were
    # orphaned by a dead engine) time to act, wrongly, before looking.
    time.sleep(5)

    status = common.stack_status(hc, stack)
    assert status[0] == 'CREATE_IN_PROGRESS', (status, explain())
    assert set(common.held_resources(hc, stack)) == {names[1]}
    rows = common.osc_json(cluster, 'stack', 'breakpoint', 'list', stack)
    assert [(r['Resource'], r['State']) for r in rows] == [
        (names[1], 'held')], rows
    assert not [e for e in common.events(hc, stack)
                if ENGINE_DOWN in (e.resource_status_reason or '')]

    rows = common.osc_json(cluster, 'stack', 'breakpoint', 'continue',
                           stack)
    assert [row['Resource'] for row in rows] == [names[1]], rows
    common.wait_stack(hc, stack, 'CREATE_COMPLETE', explain=explain)
    assert [o['output_value'] for o in hc.stacks.get(stack).outputs] == [
        'one']
    common.assert_created_once(hc, stack, names)
    after = {r.resource_name: r for r in hc.resources.list(stack)}
    assert set(after) == set(names)
    assert after[names[0]].physical_resource_id == \
        before[names[0]].physical_resource_id
    served = [line.split(':', 1)[0] for line in cluster.log_lines(
        common.clear_line(names[1], stack))]
    print('\nheld by %s (pids %s), killed; replaced by %s; released by %s'
          % (holder, pids, replacement, served))
    assert served and holder not in served
