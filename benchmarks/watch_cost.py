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
"""Watch cost: one refresh of ``breakpoint watch`` vs one resource list.

``openstack stack breakpoint watch`` refreshes every two seconds for as
long as an operation runs, so what one refresh costs the server matters
more than its latency. A refresh is one request (counted here): the
breakpoints view with ``?progress=1``. It is measured next to what
``openstack stack resource list`` sends (one ``GET .../resources``), the
cheapest stock call that could show progress, and, for reference, the
breakpoints view without progress (``breakpoint list``) and the event
list ``hook poll`` reads. Each stack is a fan-out of ``OS::Heat::None``
(``root`` and N-1 dependents) created with breakpoints on three
dependents and held there, after one update so its event history is not
trivial; sizes 50, 200, 400 and 1,000 resources (50 and 200 with
``--quick``) show whether the cost stays flat in N. Above 400 the fan is
nested (Heat runs a stack's resources in one thread group of at most
1,000 threads, and a fan starts all its dependents at once): ``root``,
dependents and nested stacks of 200 (a ``hub`` and 199 dependents), all
depending on ``root``; the resource list is then ``--nested-depth 1``,
the same rows the refresh counts.

Per call: the server's CPU time (user + system, from ``/proc``, over a
batch of calls, divided) and the client's wall time, both medians over
alternating rounds. Target: a refresh costs the server no more than one
resource list at every size.
"""

import io
import json
import statistics
import time

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import registry
from heatclient_ext.terminal import watch_session as watch_v1

import _common

HELD = ('r000', 'r001', 'r002')
BATCH = 20
TARGET = 1.0
# Larger sizes are a fan of nested fans of NESTED resources each.
MAX_FAN = 400
NESTED = 200
NESTED_FILE = 'fan.yaml'


def stack_name(size):
    return 'wc%d' % size


def depth(size):
    """The nesting depth of the stack of ``size`` resources."""
    return 0 if size <= MAX_FAN else 1


def template(size):
    """(template, files): a fan, nested above MAX_FAN resources."""
    if not depth(size):
        return _common.fan_out(size - 1), {}
    nests = (size - NESTED) // NESTED
    tmpl = _common.fan_out(size - 1 - nests - nests * NESTED)
    for index in range(nests):
        tmpl['resources']['n%d' % index] = {
            'type': NESTED_FILE, 'depends_on': ['root']}
    nested = _common.fan_out(NESTED - 1)
    nested['resources']['hub'] = nested['resources'].pop('root')
    for res in nested['resources'].values():
        if 'depends_on' in res:
            res['depends_on'] = ['hub']
    return tmpl, {NESTED_FILE: json.dumps(nested)}


def resources(hc, size):
    return hc.resources.list(stack_name(size), nested_depth=depth(size))


def build(server, size):
    hc = server.client()
    name = stack_name(size)
    tmpl, files = template(size)
    hc.stacks.create(stack_name=name, template=tmpl, files=files)
    server.wait_stack(name, 'CREATE', interval=0.2)
    # An update with the breakpoints (an event history, then the holds).
    tmpl['resources']['root']['metadata'] = {'round': 1}
    env = registry.apply_to_environment(
        {}, breakpoints.parse_names(HELD, ['update']))
    hc.stacks.update(name, template=tmpl, files=files, environment=env)
    deadline = time.monotonic() + 300
    manager_rows = []
    while len(manager_rows) < len(HELD):
        if time.monotonic() > deadline:
            raise _common.BenchError('%s: breakpoints not reached' % name)
        time.sleep(0.5)
        body = hc.http_client.get('/stacks/%s/breakpoints' % name).json()
        manager_rows = [row for row in body['breakpoints']
                        if row['state'] == 'held']
    time.sleep(2)  # let the rest of the update settle
    return {'resources': len(resources(hc, size)),
            'events': server.count_events(name)}


def calls(hc, size):
    name = stack_name(size)
    session = watch_v1.Session(hc, name, io.StringIO())
    return {
        'watch refresh (view ?progress=1)': session.refresh,
        'openstack stack resource list': lambda: resources(hc, size),
        'breakpoint list (view)': lambda: hc.http_client.get(
            '/stacks/%s/breakpoints' % name),
        'hook poll\'s event list': lambda: hc.events.list(
            name, sort_dir='asc'),
    }


def requests_per_refresh(hc, name):
    """How many HTTP requests one watch refresh sends."""
    session = watch_v1.Session(hc, name, io.StringIO())
    session.refresh()  # the first one resolves the name
    with _common.requests_sent() as sent:
        snap = session.refresh()
    if snap.progress is None or len(watch_v1.held_rows(snap)) != len(HELD):
        raise _common.BenchError('refresh did not see the holds: %r'
                                 % (snap,))
    return sent


def measure(server, size, rounds):
    hc = server.client()
    found = calls(hc, size)
    for call in found.values():  # warm up
        call()
    cpu, wall = {}, {}
    for round_ in range(rounds):
        for title in _common.order(list(found), round_):
            call = found[title]
            before = server.cpu_seconds()
            began = time.perf_counter()
            for _ in range(BATCH):
                call()
            wall.setdefault(title, []).append(
                (time.perf_counter() - began) / BATCH * 1000)
            cpu.setdefault(title, []).append(
                (server.cpu_seconds() - before) / BATCH * 1000)
    return cpu, wall


def main():
    parser = _common.parser(__doc__)
    parser.add_count('--rounds', 'rounds of %d calls each' % BATCH, 12, 5)
    args = parser.parse_args()
    rounds = args.rounds
    sizes = (50, 200) if args.quick else (50, 200, 400, 1000)
    clock = _common.start('watch cost: one watch refresh vs one resource '
                          'list', args.quick)
    results = {}
    with _common.servers((_common.PLUGIN,), keep=args.keep) as started:
        server = started[0]
        for size in sizes:
            info = build(server, size)
            _common.note('%d resources, %d events, held at %s (update)'
                         % (info['resources'], info['events'],
                            ', '.join(HELD)))
        sent = requests_per_refresh(server.client(), stack_name(sizes[-1]))
        _common.note('requests per watch refresh: %d (%s)' % (
            len(sent), ', '.join('%s %s' % (method, url.split('/v1/')[-1])
                                 for method, url in sent)))
        for size in sizes:
            results[size] = measure(server, size, rounds)
    report(results)
    clock.footer()
    return 0


def report_calls(cpu, wall, refresh_title):
    """A line per call, then refresh / resource list: (refresh, listing).

    The medians of server CPU, in ms, of the refresh and the list.
    """
    for title in cpu:
        _common.note('  %-36s CPU %7.2f   wall %7.2f' % (
            title, statistics.median(cpu[title]),
            statistics.median(wall[title])))
    refresh = statistics.median(cpu[refresh_title])
    listing = statistics.median(cpu['openstack stack resource list'])
    _common.note('  %-36s %.2f' % ('server CPU, refresh / resource list',
                                   refresh / listing if listing else
                                   float('nan')))
    return refresh, listing


def report(results):
    verdicts = []
    for size, (cpu, wall) in results.items():
        _common.note('')
        _common.note('-- %d resources: per call, ms (server CPU | client '
                     'wall), median of rounds of %d' % (size, BATCH))
        refresh, listing = report_calls(
            cpu, wall, 'watch refresh (view ?progress=1)')
        verdicts.append(refresh / listing <= TARGET if listing else False)
    _common.note('')
    flat = [statistics.median(cpu['watch refresh (view ?progress=1)'])
            for cpu, _wall in results.values()]
    growth = [statistics.median(cpu['openstack stack resource list'])
              for cpu, _wall in results.values()]
    sizes = list(results)
    _common.note('Summary: server CPU per refresh %s ms at %s resources '
                 '(resource list: %s ms); target refresh <= resource list '
                 'at every size: %s' % (
                     ' / '.join('%.2f' % value for value in flat),
                     ' / '.join(str(size) for size in sizes),
                     ' / '.join('%.2f' % value for value in growth),
                     'met' if all(verdicts) else 'MISSED'))


if __name__ == '__main__':
    raise SystemExit(main())
