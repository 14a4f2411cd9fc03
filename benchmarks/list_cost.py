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
"""List cost: ``openstack stack breakpoint list`` vs ``stack hook poll``.

A stack of 200 ``OS::Heat::TestResource`` over three nested levels (root
67, ``nested`` 67, ``nested/nested`` 66, nested-stack resources included;
each level a fan-out from one root resource so Heat's one-second sleep per
leaf resource stays small). Events come cheaply from stack updates that
change every resource's ``value`` (two events per resource per update)
until the tree holds at least 2,000 (600 with ``--quick``). A last update
holds at three breakpoints (``a005``, ``nested/b005``,
``nested/nested/c005``, pre-update).

Both commands then run in-process, the real OSC shell, alternating, with
``--nested-depth 2`` each, and must list the same three held resources.
``breakpoint list`` reads the server's breakpoints view (one request);
informational: the same through the Python APIs underneath (no OSC shell),
the client's own listing for a Heat without the view (stack, environment
and nested resource list), and, without ``--quick``, the same stack on a
server with the plugin disabled, where breakpoints are stock hooks. Target:
breakpoint list >= 10x faster than hook poll.
"""

import statistics
import time
from unittest import mock

from heatclient.common import event_utils
from heatclient.common import hook_utils
import yaml

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import registry
from heatclient_ext.v1 import manager as bp_v1

import _common

STACK = 'lc'
HELD = ('a005', 'nested/b005', 'nested/nested/c005')
TARGET = 10.0
PAUSED = _common.NATIVE_PAUSED % ('UPDATE', 'pre-update')


def level(prefix, count, child=None):
    """``<prefix>root`` and dependents; ``nested`` (child) among them."""
    value = {'value': {'get_param': 'value'}}
    resources = {prefix + 'root': {'type': 'OS::Heat::TestResource',
                                   'properties': value}}
    for index in range(count - 1 - (1 if child else 0)):
        resources['%s%03d' % (prefix, index)] = {
            'type': 'OS::Heat::TestResource',
            'depends_on': [prefix + 'root'], 'properties': value}
    if child:
        resources['nested'] = {'type': child,
                               'depends_on': [prefix + 'root'],
                               'properties': value}
    return {'heat_template_version': '2018-08-31',
            'parameters': {'value': {'type': 'string', 'default': 'v'}},
            'resources': resources}


ROOT = level('a', 67, 'level1.yaml')
FILES = {'level1.yaml': yaml.safe_dump(level('b', 67, 'level2.yaml')),
         'level2.yaml': yaml.safe_dump(level('c', 66))}


def build(server, min_events, log):
    """Create, update until enough events, then hold at HELD."""
    hc = server.client()
    began = time.monotonic()
    hc.stacks.create(stack_name=STACK, template=ROOT, files=FILES,
                     parameters={'value': 'v0'})
    server.wait_stack(STACK, 'CREATE', interval=0.2)
    updates = 0
    while server.count_events(STACK) < min_events:
        updates += 1
        hc.stacks.update(STACK, template=ROOT, files=FILES,
                         parameters={'value': 'v%d' % updates})
        wait_update_done(server, updates)
    env = registry.apply_to_environment(
        {}, breakpoints.parse_names(HELD, ['update']))
    hc.stacks.update(STACK, template=ROOT, files=FILES,
                     parameters={'value': 'held'}, environment=env)
    deadline = time.monotonic() + 300
    while paused_count(server) < len(HELD):
        if time.monotonic() > deadline:
            raise _common.BenchError('%s: breakpoints not reached'
                                     % server.label)
        time.sleep(0.2)
    time.sleep(1)  # let the rest of the update settle
    resources = len(hc.resources.list(STACK, nested_depth=2))
    api_events = len(event_utils.get_events(
        hc, STACK, {'sort_dir': 'asc'}, nested_depth=2))
    log[server.label] = {
        'resources': resources, 'events': server.count_events(STACK),
        'api_events': api_events, 'updates': updates,
        'seconds': time.monotonic() - began}


def wait_update_done(server, number):
    deadline = time.monotonic() + 600
    time.sleep(0.5)
    while True:
        row = server.stack_row(STACK)
        if row[0] == 'UPDATE' and row[1] == 'COMPLETE':
            return
        if row[1] == 'FAILED':
            raise _common.BenchError('%s update %d: %s' % (
                server.label, number, row[2]))
        if time.monotonic() > deadline:
            raise _common.BenchError('%s update %d timed out'
                                     % (server.label, number))
        time.sleep(0.2)


def paused_count(server):
    return server.query(
        'WITH RECURSIVE tree(id) AS ('
        ' SELECT id FROM stack WHERE name = ? AND owner_id IS NULL'
        ' UNION SELECT s.id FROM stack s JOIN tree t ON s.owner_id = t.id) '
        'SELECT count(*) FROM event WHERE stack_id IN tree AND '
        'resource_status_reason = ?', STACK, PAUSED)[0][0]


COMMANDS = {
    'breakpoint list': ('stack', 'breakpoint', 'list', STACK,
                        '--nested-depth', '2', '-f', 'value'),
    'hook poll': ('stack', 'hook', 'poll', STACK, '--nested-depth', '2',
                  '-f', 'value'),
}


def osc_once(server, name):
    began = time.perf_counter()
    code, out, err = _common.run_openstack(server, *COMMANDS[name])
    elapsed = time.perf_counter() - began
    if code != 0:
        raise _common.BenchError('%s on %s exited %s: %s' % (
            name, server.label, code, _common.osc_errors(err)))
    for path in HELD:
        if path.split('/')[-1] not in out:
            raise _common.BenchError('%s on %s does not list %s:\n%s' % (
                name, server.label, path, out))
    if len(out.strip().splitlines()) != len(HELD):
        raise _common.BenchError('%s on %s lists more than held:\n%s' % (
            name, server.label, out))
    return elapsed


API_NAMES = ('breakpoint list', 'hook poll',
             'breakpoint list without the view')


def api_once(hc, name):
    began = time.perf_counter()
    if name == 'breakpoint list':
        rows = [row for row in bp_v1.BreakpointManager(hc).list(STACK, 2)
                if row['state'] == bp_v1.HELD]
    elif name == 'breakpoint list without the view':
        manager = bp_v1.BreakpointManager(hc)
        with mock.patch.object(manager, 'view', return_value=None):
            rows = [row for row in manager.list(STACK, 2)
                    if row['state'] == bp_v1.HELD]
    else:
        hook = hook_utils.get_hook_type_via_status(hc, STACK)
        rows = event_utils.get_hook_events(hc, STACK, {'sort_dir': 'asc'},
                                           nested_depth=2, hook_type=hook)
    elapsed = time.perf_counter() - began
    if len(rows) != len(HELD):
        raise _common.BenchError('%s (API) found %d rows' % (name,
                                                             len(rows)))
    return elapsed


def breakdown(server, rounds):
    """Single API calls the two commands are made of, median seconds."""
    hc = server.client()
    ident = '%s/%s' % (STACK, hc.stacks.get(STACK).id)
    calls = {
        'GET breakpoints view, nested_depth=2 (breakpoint list)':
            lambda: hc.http_client.get('/stacks/%s/breakpoints'
                                       '?nested_depth=2' % STACK),
        'GET stack by name (hook poll; list without the view)':
            lambda: hc.stacks.get(STACK, resolve_outputs=False),
        'GET stack by name/id':
            lambda: hc.stacks.get(ident, resolve_outputs=False),
        'GET environment (list without the view)':
            lambda: hc.stacks.environment(ident),
        'GET resources, nested_depth=2 (list without the view)':
            lambda: hc.resources.list(ident, nested_depth=2),
        'GET events, nested_depth=2 (hook poll)':
            lambda: hc.events.list(ident, nested_depth=2, sort_dir='asc'),
    }
    found = {}
    for round_ in range(rounds):
        for title, call in calls.items():
            began = time.perf_counter()
            call()
            found.setdefault(title, []).append(time.perf_counter() - began)
    return found


def measure(server, rounds):
    hc = server.client()
    samples = {}
    names = list(COMMANDS)
    for name in names:  # warm up
        osc_once(server, name)
    for name in API_NAMES:
        api_once(hc, name)
    for round_ in range(rounds):
        for name in _common.order(names, round_):
            samples.setdefault(('osc', name), []).append(
                osc_once(server, name))
        for name in _common.order(list(API_NAMES), round_ + 1):
            samples.setdefault(('api', name), []).append(
                api_once(hc, name))
    return samples


def main():
    parser = _common.parser(__doc__)
    parser.add_count('--rounds', 'timed runs of each command', 20, 6)
    args = parser.parse_args()
    min_events = 600 if args.quick else 2000
    labels = (_common.PLUGIN,) if args.quick else (_common.PLUGIN,
                                                   _common.STOCK)
    clock = _common.start('list cost: breakpoint list vs hook poll',
                          args.quick)
    built = {}
    results = {}
    with _common.servers(labels, keep=args.keep) as started:
        _common.at_once(lambda server: build(server, min_events, built),
                        started)
        for server in started:
            info = built[server.label]
            _common.note(
                '%s: %d resources over 3 levels, %d events in the tree '
                '(%d listed by the events API, nested depth 2) after '
                'create + %d updates + 1 held update, built in %.0f s'
                % (_common.SIDE_TITLE[server.label], info['resources'],
                   info['events'], info['api_events'], info['updates'],
                   info['seconds']))
        for server in started:
            results[server.label] = measure(server, args.rounds)
        calls = breakdown(started[0], max(5, args.rounds // 2))
    report(results)
    _common.note('')
    _common.note('Where the time goes (%s, single API calls):'
                 % _common.SIDE_TITLE[started[0].label])
    for title, samples in calls.items():
        _common.note(_common.describe('  ' + title, samples, width=60))
    clock.footer()
    return 0


def report(results):
    for label, samples in results.items():
        _common.note('')
        _common.note('-- %s: 3 held breakpoints, seconds per command'
                     % _common.SIDE_TITLE[label])
        for kind, title in (('osc', 'openstack CLI, in-process'),
                            ('api', 'Python API only (informational)')):
            _common.note(title + ':')
            for name in (COMMANDS if kind == 'osc' else API_NAMES):
                _common.note(_common.describe('  ' + name,
                                              samples[(kind, name)]))
            _common.note(_common.ratio(
                '  speed-up (hook poll / breakpoint list)',
                samples[(kind, 'hook poll')],
                samples[(kind, 'breakpoint list')]))
    _common.note('')
    plugin = results[_common.PLUGIN]
    value = (statistics.median(plugin[('osc', 'hook poll')]) /
             statistics.median(plugin[('osc', 'breakpoint list')]))
    _common.note('Summary (plugin enabled, real OSC commands): breakpoint '
                 'list is %.2fx faster than hook poll; target >= %.0fx: %s'
                 % (value, TARGET, 'met' if value >= TARGET else 'MISSED'))


if __name__ == '__main__':
    raise SystemExit(main())
