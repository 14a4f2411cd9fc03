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
"""Engine overhead: stack create and delete, plugin disabled vs enabled.

Two local Heat servers side by side, one with ``[breakpoint] enabled =
false`` (stock behaviour) and one with the plugin enabled; trials alternate
between them (A/B, then B/A). Stacks of 50 and 200 ``OS::Heat::None`` in a
diamond: ``root`` -> N-2 middles -> ``sink``. The fan-out from ``root`` is
what create walks; the ``sink`` gives delete a single leaf too, because
Heat's convergence engine sleeps one second after starting each leaf
(independent) resource, so deleting a plain fan-out of N costs N seconds
on any Heat and would measure nothing but that sleep.

Two modes: no breakpoints, and one breakpoint on ``root`` (create and
delete) released as soon as it is reached (the stock ``unset_hook``
signal, which both sides understand: natively on the stock side, as a
parked hold re-dispatched on release on the plugin side). Create is timed
from the API call to CREATE_COMPLETE, delete from the API call to
DELETE_COMPLETE, both seen in Heat's database (polled every 5 ms).
The server process's CPU time over each operation is reported too: it
moves far less than wall time when other work shares the machine.
``--control`` adds a second stock server, whose ratio to the first is the
noise floor of the run; ``--pristine`` adds a server on which the engine
seam is never installed, to see what the disabled plugin itself costs.
Target: plugin/stock ratio of medians <= 1.02. ``--quick`` runs the
50-resource stacks only, 3 rounds.
"""

import itertools
import time

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import protocol
from heat_breakpoint.model import registry

import _common

MODES = ('no breakpoint', 'one breakpoint')
DEFAULT_ROUNDS = {50: 6, 200: 3}
CONTROL = 'control'
QUICK_ROUNDS = {50: 3}  # a smoke run: the 50-resource stacks only
_serial = itertools.count()


def breakpoint_env():
    return registry.apply_to_environment(
        {}, breakpoints.parse_names(['root'], ['create', 'delete']))


def release(hc, server, name, action):
    hook = 'pre-' + action.lower()
    server.wait_event(name, 'root',
                      _common.NATIVE_PAUSED % (action, hook))
    hc.resources.signal(name, 'root', data={
        'unset_hook': hook, protocol.SIGNAL_KEY: protocol.RELEASE_CONTINUE})


def trial(server, hc, size, mode):
    """Wall and server-CPU seconds of one stack's create and delete."""
    name = 'ov-%s-%d-%d' % (server.label, size, next(_serial))
    with_bp = mode == MODES[1]
    env = breakpoint_env() if with_bp else {}
    cpu = server.cpu_seconds()
    began = time.perf_counter()
    hc.stacks.create(stack_name=name, template=_common.diamond(size),
                     environment=env)
    if with_bp:
        release(hc, server, name, 'CREATE')
    created = server.wait_stack(name, 'CREATE')
    cpu_created = server.cpu_seconds()
    began_delete = time.perf_counter()
    hc.stacks.delete(name)
    if with_bp:
        release(hc, server, name, 'DELETE')
    deleted = server.wait_stack(name, 'DELETE')
    cpu_deleted = server.cpu_seconds()
    return {
        ('wall', 'create'): created - began,
        ('wall', 'delete'): deleted - began_delete,
        ('wall', 'create+delete'): created - began + deleted - began_delete,
        ('cpu', 'create'): cpu_created - cpu,
        ('cpu', 'delete'): cpu_deleted - cpu_created,
        ('cpu', 'create+delete'): cpu_deleted - cpu,
    }


def main():
    parser = _common.parser(__doc__)
    parser.add_argument('--control', action='store_true',
                        help='add a second stock server as an A/A control: '
                             'its ratio to the first shows the noise floor '
                             '(the run takes half as long again)')
    parser.add_argument('--pristine', action='store_true',
                        help='add a server where the engine seam is never '
                             'installed (Heat\'s methods unwrapped): the '
                             'disabled plugin\'s own cost (the run takes '
                             'half as long again)')
    parser.add_argument('--sizes', default=None, metavar='N[,N]',
                        help='stack sizes (default 50,200; 50 with '
                             '--quick)')
    parser.add_argument('--rounds', type=int,
                        help='rounds per size (default 6 for 50, 3 for '
                             '200; 3 with --quick)')
    args = parser.parse_args()
    rounds = dict(QUICK_ROUNDS if args.quick else DEFAULT_ROUNDS)
    if args.sizes:
        rounds = {int(size): rounds.get(int(size), 3)
                  for size in args.sizes.split(',')}
    if args.rounds:
        rounds = {size: args.rounds for size in rounds}
    clock = _common.start('overhead: create/delete, plugin disabled vs '
                          'enabled', args.quick)
    sides = [_common.STOCK, _common.PLUGIN]
    if args.control:
        _common.CONF[CONTROL] = _common.CONF[_common.STOCK]
        _common.SIDE_TITLE[CONTROL] = 'control (2nd stock server)'
        sides.append(CONTROL)
    if args.pristine:
        sides.append(_common.PRISTINE)
    results = {}
    with _common.servers(sides, keep=args.keep) as started:
        by_label = {server.label: server for server in started}
        clients = {label: by_label[label].client() for label in sides}
        for label in sides:  # warm up: first stacks pay for imports
            for mode in MODES:
                trial(by_label[label], clients[label], 10, mode)
        for size, count in rounds.items():
            _common.note('size %d: %d round(s) x %d modes x %d sides' % (
                size, count, len(MODES), len(sides)))
            for label in sides:  # warm up at this size, not counted
                trial(by_label[label], clients[label], size, MODES[0])
            for round_ in range(count):
                for index, mode in enumerate(MODES):
                    for label in rotate(sides, round_ + index):
                        result = trial(by_label[label], clients[label],
                                       size, mode)
                        for key, value in result.items():
                            results.setdefault(
                                (size, mode) + key + (label,),
                                []).append(value)
    report(results, rounds, sides)
    clock.footer()
    return 0


def rotate(sides, round_):
    if len(sides) == 2:
        return _common.order(sides, round_)
    shift = round_ % len(sides)
    return sides[shift:] + sides[:shift]


def report(results, rounds, sides):
    _common.note('')
    _common.note('Diamond of OS::Heat::None (root -> N-2 -> sink). wall: '
                 'seconds from the API call to the stack COMPLETE in the '
                 'database; cpu: CPU seconds the server process used '
                 'meanwhile (less sensitive to other load).')
    verdicts = []
    others = [label for label in sides if label != _common.STOCK]
    for size in rounds:
        for mode in MODES:
            _common.note('')
            _common.note('-- %d resources, %s' % (size, mode))
            for metric in ('wall', 'cpu'):
                for op in ('create', 'delete', 'create+delete'):
                    def get(label):
                        return results.get((size, mode, metric, op, label),
                                           [])
                    for label in sides:
                        _common.note(_common.describe(
                            '%s %s  %s' % (metric, op,
                                           _common.SIDE_TITLE[label]),
                            get(label), width=50))
                    for label in others:
                        _common.note(_common.ratio(
                            '%s %s  ratio of medians %s/stock' % (
                                metric, op, label), get(label),
                            get(_common.STOCK), width=50))
                        _common.note(_common.paired(
                            '%s %s  median of paired ratios %s/stock' % (
                                metric, op, label), get(label),
                            get(_common.STOCK), width=50))
                    stock = get(_common.STOCK)
                    if op == 'create+delete' and stock:
                        verdicts.append((size, mode, metric, {
                            label: _common.median(get(label)) /
                            _common.median(stock) for label in others}))
    _common.note('')
    _common.note('Summary (create+delete, ratio of medians to stock, '
                 'target <= 1.02):')
    for size, mode, metric, found in verdicts:
        value = found[_common.PLUGIN]
        control = ''.join('  (%s/stock %.3f)' % (label, found[label])
                          for label in (CONTROL, _common.PRISTINE)
                          if label in found)
        _common.note('  %3d resources, %-15s %-4s plugin %.3f  %s%s' % (
            size, mode, metric, value, 'met' if value <= 1.02 else 'MISSED',
            control))


if __name__ == '__main__':
    raise SystemExit(main())
