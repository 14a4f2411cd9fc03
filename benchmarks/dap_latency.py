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
"""DAP latency: from the engine parking a resource to the editor's stop.

``heat-breakpoint dap`` finds holds by refreshing (the watch's one
request, the breakpoints view with ``?progress=1``) every 0.2 s. Here a
real adapter process is driven over its stdin/stdout by a small DAP
client, on a chain of ``OS::Heat::None`` resources with a function
breakpoint ``*``: every resource holds in turn, and each ``stopped``
event is answered with ``continue``. The moment the engine parked a
resource is taken from the server's own SQLite database (the hold's
event, watched read-only every 5 ms, which costs the server nothing);
the moment of the stop is when the client reads the ``stopped`` event.
Target: every hold reaches the editor within 0.5 s.

Then the server cost of one adapter refresh (the session's own
``refresh``: held resources, latest events, the stack's state) next to
one ``openstack stack resource list`` (``GET .../resources``), on a
stack of 50 resources held at three: the server's CPU per call (from
``/proc``, over batches) and the client's wall time, medians of
alternating rounds, and how many requests one refresh sends.
"""

import json
import os
import statistics
import tempfile
import threading
import time

from heatclient_ext.dap import session as dap_session

import _common
import watch_cost

TARGET = 0.5
BATCH = 20
SIZE = 50


def parked_times(server, name, found, stop):
    """Record when each resource's hold event appears in the database."""
    while not stop.is_set():
        rows = server.query(
            'SELECT e.resource_name FROM event e JOIN stack s ON '
            'e.stack_id = s.id WHERE s.name = ? AND '
            "e.resource_status_reason LIKE 'Breakpoint % reached %'", name)
        now = time.perf_counter()
        for (resource,) in rows:
            found.setdefault(resource, now)
        time.sleep(0.005)


def latency_run(server, workdir, run, length):
    names = ['n%02d' % index for index in range(length)]
    path = os.path.join(workdir, 'chain%d.yaml' % run)
    with open(path, 'w') as out:
        json.dump(_common.chain(names), out)
    name = 'dap%d' % run
    parked, stop = {}, threading.Event()
    watcher = threading.Thread(target=parked_times,
                               args=(server, name, parked, stop))
    adapter = _common.dap_adapter()
    samples = []
    try:
        adapter.launch(path, name, ['*'], endpoint=server.endpoint)
        watcher.start()
        for _ in names:
            at, stopped = adapter.wait(lambda m: m.get('event') == 'stopped')
            resource = stopped['body']['description'].split(' ')[0]
            deadline = time.monotonic() + 5
            while resource not in parked and time.monotonic() < deadline:
                time.sleep(0.005)
            samples.append(at - parked[resource])
            adapter.request('continue', threadId=stopped['body']['threadId'])
        _at, exited = adapter.wait(lambda m: m.get('event') == 'exited')
        if exited['body']['exitCode'] != 0:
            raise _common.BenchError('%s did not complete' % name)
    finally:
        stop.set()
        adapter.close()
    return samples


def cost_calls(server):
    hc = server.client()
    name = watch_cost.stack_name(SIZE)
    sess = dap_session.Session(lambda message: None)
    sess.client = hc
    sess.manager = dap_session.bp_v1.BreakpointManager(hc)
    sess.stack = '%s/%s' % (name, hc.stacks.get(name).id)
    return sess, {
        'dap refresh (view ?progress=1)': sess.refresh,
        'openstack stack resource list': lambda: hc.resources.list(name),
    }


def requests_per_refresh(sess):
    with _common.requests_sent() as sent:
        snap = sess.refresh()
    if len(sess.holds.held) != len(watch_cost.HELD):
        raise _common.BenchError('refresh did not see the holds: %r'
                                 % (snap,))
    return sent


def measure_cost(server, rounds):
    sess, calls = cost_calls(server)
    for call in calls.values():
        call()
    cpu, wall = {}, {}
    for round_ in range(rounds):
        for title in _common.order(list(calls), round_):
            before = server.cpu_seconds()
            began = time.perf_counter()
            for _ in range(BATCH):
                calls[title]()
            wall.setdefault(title, []).append(
                (time.perf_counter() - began) / BATCH * 1000)
            cpu.setdefault(title, []).append(
                (server.cpu_seconds() - before) / BATCH * 1000)
    return requests_per_refresh(sess), cpu, wall


def main():
    parser = _common.parser(__doc__)
    parser.add_count('--runs', 'launches of a chain', 3, 1)
    args = parser.parse_args()
    length = 5 if args.quick else 8
    rounds = 4 if args.quick else 10
    clock = _common.start('dap latency: hold to stopped, and one refresh '
                          'vs one resource list', args.quick)
    samples = []
    with _common.servers((_common.PLUGIN,), keep=args.keep) as started:
        server = started[0]
        workdir = tempfile.mkdtemp(prefix='dap-latency-')
        for run in range(args.runs):
            samples += latency_run(server, workdir, run, length)
        info = watch_cost.build(server, SIZE)
        sent, cpu, wall = measure_cost(server, rounds)
    _common.note('')
    _common.note('-- hold to stopped: %d holds, %d launches of a chain of '
                 '%d, refresh every %.1f s' % (len(samples), args.runs,
                                               length, dap_session.POLL))
    _common.note(_common.describe('engine parked -> editor stopped',
                                  samples))
    _common.note('')
    _common.note('-- %d resources (%d events), held at %s: per call, ms '
                 '(server CPU | client wall), median of %d rounds of %d'
                 % (info['resources'], info['events'],
                    ', '.join(watch_cost.HELD), rounds, BATCH))
    _common.note('requests per dap refresh: %d (%s)' % (
        len(sent), ', '.join('%s %s' % (method, url.split('/v1/')[-1])
                             for method, url in sent)))
    refresh, listing = watch_cost.report_calls(
        cpu, wall, 'dap refresh (view ?progress=1)')
    _common.note('')
    _common.note('Summary: hold -> stopped median %.3f s, max %.3f s '
                 '(target <= %.1f s: %s); one request per refresh, server '
                 'CPU %.2f ms vs %.2f ms for a resource list' % (
                     statistics.median(samples), max(samples), TARGET,
                     'met' if max(samples) <= TARGET else 'MISSED',
                     refresh, listing))
    clock.footer()
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
