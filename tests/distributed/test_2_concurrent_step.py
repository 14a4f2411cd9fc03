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
"""Two clients step the same held resource at the same moment.

The API test lists first in both clients, then steps at a barrier, so
that both signals reach the engines at once; the CLI test runs two
``openstack stack breakpoint step`` processes side by side.

Exactly one step happens: one ``released (step)`` event, the hold moves
to the next resource once, every resource is created once. The second
client either loses the race in the engine (the claim on the hold is an
atomic update of the resource row) or is told the hook is no longer set.
"""

import threading

from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons
from heatclient_ext import exceptions
from heatclient_ext.v1 import manager as bp_api
from tests.distributed import common

RACES = 3  # stacks raced at once with the Python API


def _chain_stack(hc, prefix):
    t = common.tag()
    names = ['%s_%s' % (letter, t) for letter in 'abc']
    stack = '%s-%s' % (prefix, t)
    hc.stacks.create(stack_name=stack, template=common.chain(names),
                     environment=common.breakpoint_env(names[1]))
    return stack, names


def _assert_one_step(cluster, hc, stack, names, outcomes):
    a, b, c = names

    def explain():
        return '\noutcomes: %r\nengine log:\n%s\n%s' % (
            outcomes, '\n'.join(cluster.log_lines('"%s"' % b) +
                                cluster.log_lines(b)), cluster.errors())
    assert any(ok for ok, _detail in outcomes), explain()
    common.wait_held_set(hc, stack, [c], explain=explain)
    released = [ev.resource_status_reason
                for ev in common.events(hc, stack, b)
                if (ev.resource_status_reason or '').startswith(
                    'Breakpoint %s released' % b)]
    assert released == [reasons.released(b, 'step')], explain()
    hits = [ev for ev in common.events(hc, stack, c)
            if reasons.parse_held(ev.resource_status_reason)]
    assert len(hits) == 1, explain()
    common.osc_ok(cluster, 'stack', 'breakpoint', 'continue', stack)
    common.wait_stack(hc, stack, 'CREATE_COMPLETE', explain=explain)
    common.assert_created_once(hc, stack, names)
    # Where the signals were served, and whether both reached the hold
    # (the loser of the claim logs "already released"). A loser that came
    # after Heat cleared the flag, before the winner claimed the hold,
    # goes to the claim without Heat's clear line (a release cut off by
    # its engine's death is served the same way).
    served = [line.split(':', 1)[0] for line in
              cluster.log_lines(common.clear_line(b, stack))]
    lost = cluster.log_lines('Breakpoint on %s already released' % b)
    assert served and len(lost) <= 1, explain()
    return served, len(lost)


def test_two_api_clients_step_at_once(cluster):
    hc = cluster.client()
    stacks = [_chain_stack(hc, 'race') for _ in range(RACES)]
    for stack, names in stacks:
        common.wait_held_set(hc, stack, [names[1]])

    barrier = threading.Barrier(2 * RACES)
    outcomes = {stack: [] for stack, _names in stacks}

    def step(stack, name):
        # A client of its own, as a second user would have. Both users
        # listed the held resource before either stepped: the two step
        # signals reach the engines at the same moment.
        manager = bp_api.BreakpointManager(cluster.client())
        st = manager.get_stack(stack)
        rows = manager.held(st, manager.armed('%s/%s' % (st.stack_name,
                                                         st.id)))
        barrier.wait()
        try:
            manager.release(stack, name, protocol.RELEASE_STEP, rows)
        except exceptions.BreakpointCommandError as exc:
            outcomes[stack].append((False, str(exc)))
        else:
            outcomes[stack].append((True, ''))

    threads = [threading.Thread(target=step, args=(stack, names[1]))
               for stack, names in stacks for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    served = {}
    for stack, names in stacks:
        served[stack] = _assert_one_step(cluster, hc, stack, names,
                                         outcomes[stack])
    print('\nsignals served by: %r\nclients: %r' % (served, outcomes))


def test_two_cli_processes_step_at_once(cluster):
    hc = cluster.client()
    stack, names = _chain_stack(hc, 'race-cli')
    common.wait_held_set(hc, stack, [names[1]])
    procs = [common.openstack_process(cluster, 'stack', 'breakpoint',
                                      'step', stack, names[1])
             for _ in range(2)]
    outcomes = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        outcomes.append((proc.returncode == 0, (out + err).strip()))
        # Exit 0, or exit 1 with our one-line message: never a traceback.
        assert proc.returncode in (0, 1), outcomes
        assert 'Traceback' not in err, err
    served = _assert_one_step(cluster, hc, stack, names, outcomes)
    print('\nsignals served by: %r\nclients: %r' % (served, outcomes))
