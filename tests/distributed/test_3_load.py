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
"""Load: 20 stacks x 3 breakpoints held at once, then all continued.

Each stack is one root (the only leaf: Heat's convergence engine sleeps
a second after triggering each leaf) and three resources that need it,
each with a breakpoint of its own. All 60 holds are parked at the same
time across the engines; then 20 clients continue their stacks at once.
"""

import concurrent.futures
import time

from heatclient_ext.v1 import manager as bp_api
from tests.distributed import common

STACKS = 20
BREAKPOINTS = 3


def held_counts(cluster, ids):
    """{stack: holds the plugin's pause clock counts for its operation}."""
    rows = cluster.mariadb.query(
        cluster.database, 'SELECT root_stack_id, held FROM breakpoint_pause')
    by_id = {stack_id: held for stack_id, held in rows}
    return {stack: by_id.get(stack_id) for stack, stack_id in ids.items()}


def test_20_stacks_3_breakpoints_each(cluster):
    hc = cluster.client()
    t = common.tag()
    stacks = {}
    for i in range(STACKS):
        root = 'root_%s_%02d' % (t, i)
        held = ['bp%d_%s_%02d' % (j, t, i) for j in range(BREAKPOINTS)]
        stack = 'load-%s-%02d' % (t, i)
        hc.stacks.create(stack_name=stack,
                         template=common.fan_out(root, held),
                         environment=common.breakpoint_env(*held))
        stacks[stack] = (root, held)

    def explain():
        return '\nengine errors:\n%s' % cluster.errors()

    started = time.monotonic()
    pending = set(stacks)

    def all_held():
        for stack in sorted(pending):
            found = common.held_resources(hc, stack)
            if set(found) == set(stacks[stack][1]):
                pending.discard(stack)
            status = common.stack_status(hc, stack)
            assert status[0] == 'CREATE_IN_PROGRESS', (stack, status,
                                                       explain())
        return not pending
    common.wait_for(all_held, 180, interval=1,
                    what='%d stacks held at %d breakpoints each'
                    % (STACKS, BREAKPOINTS))
    held_after = time.monotonic() - started
    by_engine = {
        name: sum(1 for stack, (root, held) in stacks.items()
                  for bp in held if common.hold_line(bp) in
                  cluster.read_log(name))
        for name in cluster.all_engine_names()}
    assert sum(by_engine.values()) == STACKS * BREAKPOINTS, by_engine
    # The plugin's pause clock (its own table in Heat's database) counts
    # every hold of an operation, whichever engine parked it.
    ids = {stack: hc.stacks.get(stack, resolve_outputs=False).id
           for stack in stacks}
    assert held_counts(cluster, ids) == {s: BREAKPOINTS for s in stacks}

    def continue_(stack):
        # A client per stack, as 20 users would have.
        manager = bp_api.BreakpointManager(cluster.client())
        return sorted(row['resource'] for row in manager.continue_(stack))

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(STACKS) as pool:
        released = dict(zip(stacks, pool.map(continue_, stacks)))
    for stack, (root, held) in stacks.items():
        assert released[stack] == sorted(held), (stack, released[stack])

    pending = set(stacks)

    def all_complete():
        for stack in sorted(pending):
            status = common.stack_status(hc, stack)
            if status[0] == 'CREATE_COMPLETE':
                pending.discard(stack)
            else:
                assert status[0] == 'CREATE_IN_PROGRESS', (
                    stack, status, explain())
        return not pending
    common.wait_for(all_complete, 180, interval=1,
                    what='%d stacks CREATE_COMPLETE' % STACKS)
    complete_after = time.monotonic() - started

    # Complete: the operation's pause clock went with it (no row left).
    assert held_counts(cluster, ids) == {s: None for s in stacks}
    for stack, (root, held) in stacks.items():
        common.assert_created_once(hc, stack, [root] + held)
        assert len(list(hc.resources.list(stack))) == 1 + BREAKPOINTS
    print('\n%d holds parked in %.1f s (by engine: %r); all %d stacks '
          'CREATE_COMPLETE %.1f s after the continues'
          % (STACKS * BREAKPOINTS, held_after, by_engine, STACKS,
             complete_after))
