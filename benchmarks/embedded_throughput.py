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
"""Embedded throughput: how fast the local Heat walks a graph, plugin on/off.

Resources created per second (from the create API call to CREATE_COMPLETE
in Heat's database), no breakpoints, on two local servers: one with
``[breakpoint] enabled = false`` (stock behaviour), one with the plugin.

* ``fan-out``: one root and 200 dependents (201 resources). Not throttled:
  trials alternate between the two servers (A/B, then B/A).
* ``independent``: 200 unrelated resources (30 with ``--quick``). Heat's
  convergence engine sleeps one second after starting each leaf
  (independent) resource, on any Heat deployment, so this shape takes
  about N seconds and measures that sleep; the engine is idle in between,
  so to fit the time budget both servers run their trial at the same
  time (one trial each; ``--independent-trials`` for more).

The server process's CPU time per create is reported too (less sensitive
to other load on the machine than wall time). Target: plugin/stock ratio
of median create times <= 1.02 on both shapes.
"""

import time

import _common

_serial = iter(range(1, 10 ** 6))


def create(server, hc, template, count, shape):
    """(wall seconds, server CPU seconds) of one stack create."""
    name = 'tp-%s-%s-%d' % (shape, server.label, next(_serial))
    cpu = server.cpu_seconds()
    began = time.perf_counter()
    hc.stacks.create(stack_name=name, template=template)
    done = server.wait_stack(name, 'CREATE', interval=0.005)
    return done - began, server.cpu_seconds() - cpu


def side_by_side(started, clients, template, count, shape):
    """One trial on every server at once: {label: seconds}."""
    results = {}

    def one(server):
        results[server.label] = create(server, clients[server.label],
                                       template, count, shape)

    _common.at_once(one, started)
    return results


def main():
    parser = _common.parser(__doc__)
    parser.add_count('--independent', 'resources of the independent shape',
                     200, 30)
    parser.add_argument('--independent-trials', type=int, default=1,
                        help='side-by-side trials of the independent shape '
                             '(default 1; about N seconds each)')
    parser.add_count('--fan-out-trials',
                     'trials per server of the fan-out shape', 6, 2)
    args = parser.parse_args()
    independent = args.independent
    fan_trials = args.fan_out_trials
    clock = _common.start('embedded throughput: resources/second, plugin '
                          'on/off', args.quick)
    sides = (_common.STOCK, _common.PLUGIN)
    fan_count = 201
    shapes = {
        'fan-out': ('1 root + 200 dependents', fan_count,
                    _common.fan_out(fan_count - 1)),
        'independent': ('%d independent' % independent, independent,
                        _common.independent(independent)),
    }
    times = {}
    with _common.servers(sides, keep=args.keep) as started:
        by_label = {server.label: server for server in started}
        clients = {label: server.client()
                   for label, server in by_label.items()}
        for label in sides:  # warm up: first stacks pay for imports
            create(by_label[label], clients[label], _common.fan_out(20), 21,
                   'warm')
        _, count, template = shapes['fan-out']
        _common.note('fan-out: %d trial(s) per server, alternating'
                     % fan_trials)
        for round_ in range(fan_trials):
            for label in _common.order(sides, round_):
                wall, cpu = create(by_label[label], clients[label], template,
                                   count, 'fan')
                times.setdefault(('fan-out', label), []).append(wall)
                times.setdefault(('fan-out', label, 'cpu'), []).append(cpu)
        _, count, template = shapes['independent']
        _common.note('independent: %d trial(s), both servers at once '
                     '(about %d s each)' % (args.independent_trials, count))
        for _round in range(args.independent_trials):
            for label, (wall, cpu) in side_by_side(
                    started, clients, template, count, 'ind').items():
                times.setdefault(('independent', label), []).append(wall)
                times.setdefault(('independent', label, 'cpu'),
                                 []).append(cpu)
    report(shapes, times)
    clock.footer()
    return 0


def report(shapes, times):
    _common.note('')
    _common.note('Create, no breakpoints; resources per second = resources '
                 '/ (API call to CREATE_COMPLETE)')
    verdicts = []
    for shape, (title, count, _template) in shapes.items():
        _common.note('')
        _common.note('-- %s (%s resources)' % (title, count))
        stock = times.get((shape, _common.STOCK), [])
        plugin = times.get((shape, _common.PLUGIN), [])
        for label, samples in ((_common.STOCK, stock),
                               (_common.PLUGIN, plugin)):
            _common.note(_common.describe(
                'seconds  ' + _common.SIDE_TITLE[label], samples))
        for label, samples in ((_common.STOCK, stock),
                               (_common.PLUGIN, plugin)):
            _common.note(_common.describe(
                'res/s    ' + _common.SIDE_TITLE[label],
                [count / s for s in samples], unit='res/s'))
        _common.note(_common.ratio('time ratio of medians plugin/stock',
                                   plugin, stock))
        if shape == 'fan-out':
            _common.note(_common.paired('median of paired ratios', plugin,
                                        stock))
        stock_cpu = times.get((shape, _common.STOCK, 'cpu'), [])
        plugin_cpu = times.get((shape, _common.PLUGIN, 'cpu'), [])
        _common.note(_common.describe(
            'server CPU s  ' + _common.SIDE_TITLE[_common.STOCK], stock_cpu))
        _common.note(_common.describe(
            'server CPU s  ' + _common.SIDE_TITLE[_common.PLUGIN],
            plugin_cpu))
        _common.note(_common.ratio('CPU ratio of medians plugin/stock',
                                   plugin_cpu, stock_cpu))
        if stock and plugin:
            verdicts.append((title, _common.median(plugin) /
                             _common.median(stock),
                             count / _common.median(stock),
                             count / _common.median(plugin)))
    _common.note('')
    _common.note('Summary (target: plugin/stock time ratio <= 1.02):')
    for title, value, stock_rate, plugin_rate in verdicts:
        _common.note('  %-26s stock %6.1f res/s, plugin %6.1f res/s, '
                     'ratio %.3f  %s' % (title, stock_rate, plugin_rate,
                                         value,
                                         'met' if value <= 1.02 else
                                         'MISSED'))


if __name__ == '__main__':
    raise SystemExit(main())
