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
"""Scale: a stack of 1,000 resources over three nested levels.

The root holds ``hub``, 19 ``OS::Heat::None`` and 4 nested stacks
``n0``..``n3``; each of those holds ``hub``, 15 more and 4 nested stacks
``l0``..``l3``; each of those 16 holds ``hub`` and 55 ``r01``..``r55``.
Every stack is a fan from its ``hub`` (one leaf: Heat sleeps a second
per leaf). 24 + 4 x 20 + 16 x 56 = 1,000 resources, nested-stack
resources included; 21 stacks. (Fewer, larger nested stacks: the local
server is one process whose 64 RPC threads each wait on a nested stack
resource being created; 90 of those at once starve it, plugin or not.)

On one local Heat (plugin enabled), with 10 breakpoints, on the ``hub``
of ten innermost stacks (``n0/l0/hub`` .. ``n2/l1/hub``):

* ``breakpoint list``: the breakpoints view through the API, all levels
  (``GET .../breakpoints?nested_depth=3``), while the 10 are held and
  the rest of the tree is created (no event for 2 s): target <= 0.05 s
  (median);
* step latency: from the step request on a held ``hub`` (the resource
  signal ``breakpoint step`` sends, by stack ``name/id``) to the first of
  its 55 next resources shown held: target <= 0.1 s (median); also until
  all 55 are held. Each step starts on a quiet tree (no event for 1 s).
  ``breakpoint step`` reads the view first: add one list to its time;
* create with the 10 breakpoints, continued as soon as the first holds
  (every resource held then, as ``breakpoint continue`` does),
  vs the same create without breakpoints, CPU of the server from request
  to CREATE_COMPLETE, alternating, each create on a fresh server, ratio
  of medians: target <= 1.02.
"""

import statistics
import time

import yaml

from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons

import _common

BREAKPOINTS = (['n0/l%d/hub' % i for i in range(4)] +
               ['n1/l%d/hub' % i for i in range(4)] +
               ['n2/l0/hub', 'n2/l1/hub'])
NEXT = 55
LIST_TARGET = 0.05
STEP_TARGET = 0.1
CPU_TARGET = 1.02


def fan(extra, nested=(), child=None):
    resources = {'hub': {'type': 'OS::Heat::None'}}
    for name in extra:
        resources[name] = {'type': 'OS::Heat::None', 'depends_on': ['hub']}
    for name in nested:
        resources[name] = {'type': child, 'depends_on': ['hub']}
    return {'heat_template_version': '2018-08-31', 'resources': resources}


ROOT = fan(['x%02d' % i for i in range(19)], ['n%d' % i for i in range(4)],
           'mid.yaml')
FILES = {
    'mid.yaml': yaml.safe_dump(fan(['y%02d' % i for i in range(15)],
                                   ['l%d' % i for i in range(4)],
                                   'leaf.yaml')),
    'leaf.yaml': yaml.safe_dump(fan(['r%02d' % i
                                     for i in range(1, NEXT + 1)])),
}


def count_resources():
    mid = yaml.safe_load(FILES['mid.yaml'])['resources']
    leaf = yaml.safe_load(FILES['leaf.yaml'])['resources']
    return len(ROOT['resources']) + 4 * (len(mid) + 4 * len(leaf))


def held(server, root_id):
    """{(stack id, resource name)} held in the tree of ``root_id``."""
    rows = server.query(
        "SELECT stack_id, name, status_reason FROM resource WHERE "
        "root_stack_id = ? AND status = 'IN_PROGRESS'", root_id)
    return {(sid, name) for sid, name, reason in rows
            if reasons.parse_held(reason)}


def wait(predicate, timeout=600, interval=0.005, what='condition'):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(interval)
    raise _common.BenchError('no %s after %ds' % (what, timeout))


def root_id(server, name):
    return wait(lambda: (server.query(
        'SELECT id FROM stack WHERE name = ? AND owner_id IS NULL AND '
        'deleted_at IS NULL', name) or [[None]])[0][0], 60,
        what='stack %s' % name)


def signal(hc, stack, name, how):
    """Release as ``breakpoint step`` does: the stack named ``name/id``.

    (By id alone heatclient first looks the stack up: one more request.)
    """
    hc.resources.signal(stack, name, data={
        'unset_hook': 'pre-create', protocol.SIGNAL_KEY: how})


def ident(server, stack_id):
    return '%s/%s' % (server.query('SELECT name FROM stack WHERE id = ?',
                                   stack_id)[0][0], stack_id)


def settle(server, root_id, quiet=2.0, timeout=600):
    """Wait until the tree writes no event for ``quiet`` seconds.

    The 10 hold long before the rest of the tree is created: measured
    then, list and step would share the server with those creates.
    """
    last, since = None, time.monotonic()
    deadline = since + timeout
    while time.monotonic() < deadline:
        newest = server.query(
            'SELECT MAX(event.id) FROM event JOIN stack ON '
            'stack.id = event.stack_id WHERE stack.id = ? OR '
            'stack.id IN (SELECT DISTINCT stack_id FROM resource '
            'WHERE root_stack_id = ?)', root_id, root_id)[0][0]
        if newest != last:
            last, since = newest, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
        time.sleep(0.2)
    raise _common.BenchError('the tree of %s never settled' % root_id)


def delete(server, hc, name):
    hc.stacks.delete(name)
    wait(lambda: server.query(
        'SELECT 1 FROM stack WHERE name = ? AND owner_id IS NULL AND '
        'deleted_at IS NOT NULL', name), 900, 0.05, '%s deleted' % name)


def timed_create(server, hc, name, with_breakpoints):
    """Server CPU seconds from the create request to CREATE_COMPLETE."""
    env = {'breakpoints': BREAKPOINTS} if with_breakpoints else {}
    began = server.cpu_seconds()
    hc.stacks.create(stack_name=name, template=ROOT, files=FILES,
                     environment=env)
    if with_breakpoints:
        stack_id = root_id(server, name)
        wait(lambda: held(server, stack_id), 900, 0.01,
             'a hold in %s' % name)
        continue_all(server, hc, name, stack_id)
    else:
        server.wait_stack(name, 'CREATE', timeout=1800, interval=0.02)
    return server.cpu_seconds() - began


def continue_all(server, hc, name, stack_id, timeout=1800):
    """``breakpoint continue`` until the create completes.

    What is held is released with ``continue`` (which also ends the
    operation's breakpoints); a check that decided to hold just before
    the first release is released as soon as it shows.
    """
    released = set()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for stack, resource in sorted(held(server, stack_id) - released):
            signal(hc, ident(server, stack), resource,
                   protocol.RELEASE_CONTINUE)
            released.add((stack, resource))
        row = server.stack_row(name)
        if row is not None and tuple(row[:2]) == ('CREATE', 'COMPLETE'):
            return
        if row is not None and row[1] == 'FAILED':
            raise _common.BenchError('%s: %s' % (name, row))
        time.sleep(0.02)
    raise _common.BenchError('%s: no CREATE_COMPLETE' % name)


def list_and_step(server, hc, log, samples):
    """Held at the 10: time the view, then step from each hub."""
    name = 'scale-held'
    hc.stacks.create(stack_name=name, template=ROOT, files=FILES,
                     environment={'breakpoints': BREAKPOINTS})
    stack_id = root_id(server, name)
    holds = wait(lambda: len(held(server, stack_id)) == len(BREAKPOINTS)
                 and held(server, stack_id), 900, 0.05, '10 holds')
    log('  %d resources held at their breakpoints' % len(holds))
    settle(server, stack_id)
    log('  the rest of the tree is created')
    url = '%s/stacks/%s/breakpoints?nested_depth=3' % (server.endpoint,
                                                       name)
    import requests
    listed = []
    for _ in range(samples):
        began = time.perf_counter()
        answer = requests.get(url, timeout=60)
        listed.append(time.perf_counter() - began)
        answer.raise_for_status()
    rows = [r for r in answer.json()['breakpoints'] if r['state'] == 'held']
    if len(rows) != len(BREAKPOINTS):
        raise _common.BenchError('the view lists %d held, not %d'
                                 % (len(rows), len(BREAKPOINTS)))
    steps, all_next = [], []
    for sid, rname in sorted(holds):
        settle(server, stack_id, quiet=1.0)
        stack = ident(server, sid)
        before = held(server, stack_id)
        began = time.perf_counter()
        signal(hc, stack, rname, protocol.RELEASE_STEP)

        def stepped(count):
            def reached():
                new = {h for h in held(server, stack_id) - before
                       if h[0] == sid}
                return len(new) >= count
            return reached
        wait(stepped(1), 300, 0.002, 'the step from %s' % rname)
        steps.append(time.perf_counter() - began)
        wait(stepped(NEXT), 300, 0.005, 'all next of %s' % rname)
        all_next.append(time.perf_counter() - began)
    # Hundreds are held now: the delete replaces the operation.
    delete(server, hc, name)
    return listed, steps, all_next


def main():
    parser = _common.parser(__doc__)
    parser.add_count('--rounds', 'create rounds per side', 3, 1)
    args = parser.parse_args()
    clock = _common.start('scale: %d resources, %d breakpoints'
                          % (count_resources(), len(BREAKPOINTS)),
                          args.quick)
    log = _common.note
    cpu = {True: [], False: []}
    walls = {True: [], False: []}
    with _common.servers([_common.PLUGIN], keep=args.keep) as (server,):
        hc = server.client()
        listed, steps, all_next = list_and_step(server, hc, log, 20)
        log('  list and step done')
    # Each create on a fresh server: one server's creates grow slower
    # over its life (its heap and database grow), by more than the target
    # in a few creates, whichever side comes later.
    for round_ in range(args.rounds):
        for with_bp in ((True, False) if round_ % 2 else (False, True)):
            name = 'scale-%d-%s' % (round_, 'bp' if with_bp else 'no')
            with _common.servers([_common.PLUGIN]) as (server,):
                hc = server.client()
                began = time.monotonic()
                cpu[with_bp].append(timed_create(server, hc, name, with_bp))
                walls[with_bp].append(time.monotonic() - began)
            log('  round %d, %s: %.1f s CPU, %.1f s wall' % (
                round_, 'with breakpoints' if with_bp else 'without',
                cpu[with_bp][-1], walls[with_bp][-1]))
    log('')
    log(_common.describe('breakpoint list (view, API), s', listed))
    log(_common.describe('step to the first next held, s', steps))
    log(_common.describe('step to all %d next held, s' % NEXT, all_next))
    log(_common.describe('create, no breakpoints, server CPU', cpu[False]))
    log(_common.describe('create, 10 bps continued, server CPU',
                         cpu[True]))
    log(_common.describe('create, no breakpoints, wall', walls[False]))
    log(_common.describe('create, 10 bps continued, wall', walls[True]))
    ratio = statistics.median(cpu[True]) / statistics.median(cpu[False])
    list_median = statistics.median(listed)
    step_median = statistics.median(steps)
    log('')
    log('Summary (medians):')
    log('  breakpoint list          %.4f s   %s (target <= %.2f)' % (
        list_median, 'met' if list_median <= LIST_TARGET else 'MISSED',
        LIST_TARGET))
    log('  step latency             %.4f s   %s (target <= %.2f)' % (
        step_median, 'met' if step_median <= STEP_TARGET else 'MISSED',
        STEP_TARGET))
    log('  create CPU with / without  %.3f   %s (target <= %.2f)' % (
        ratio, 'met' if ratio <= CPU_TARGET else 'MISSED', CPU_TARGET))
    clock.footer()
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
