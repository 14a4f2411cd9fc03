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
"""Cost of --breakpoint-on-change '*' on an update that changes little.

One local Heat with the plugin enabled, two stacks of 200
``OS::Heat::TestResource`` in a diamond (``root`` -> 198 middles ->
``sink``: one leaf each way, so Heat's one-second sleep per leaf resource
is paid once). Each round updates both stacks so that 2 middles get a new
``value`` (in place) and 198 resources are unchanged: one stack with
``when: changed`` on ``'*'`` (every resource), whose two holds are
released with ``continue`` as soon as both are reached, the other without
breakpoints. Alternating A/B order. Timed from the update call to
UPDATE_COMPLETE in Heat's database (5 ms polling), plus the server's CPU
time over the update. The breakpoint side includes the two holds and their
release round trip (a hold is a parked check re-dispatched on release).
``--control`` adds a third stack, updated without breakpoints too: its
ratio to the first is the noise floor of the run. Target: ratio of
medians (breakpoints / none) <= 1.05. ``--quick``: 2 rounds.
"""

import itertools
import time

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons
from heat_breakpoint.model import registry

import _common

SIZE = 200
CHANGED = ('m000', 'm099')
MODES = ('no breakpoints', "on-change '*'")
CONTROL = 'control (none, 2nd stack)'
DEFAULT_ROUNDS = 6
QUICK_ROUNDS = 2
_serial = itertools.count()


def template(version):
    """The diamond; the CHANGED middles carry ``version`` as their value."""
    def res(name, depends_on=None):
        value = version if name in CHANGED else 'same'
        found = {'type': 'OS::Heat::TestResource',
                 'properties': {'value': value}}
        if depends_on:
            found['depends_on'] = depends_on
        return found
    middles = ['m%03d' % index for index in range(SIZE - 2)]
    resources = {'root': res('root')}
    for name in middles:
        resources[name] = res(name, ['root'])
    resources['sink'] = res('sink', middles)
    return {'heat_template_version': '2018-08-31', 'resources': resources}


def on_change_env():
    return registry.apply_to_environment(
        {}, breakpoints.parse_names(['*'], when=breakpoints.CHANGED))


def wait_held(server, name, resource, timeout=600, interval=0.005):
    """Wait until the resource is held now (its row, not an old event)."""
    reason = reasons.held_change('*', 'UPDATE', 'in-place')
    deadline = time.monotonic() + timeout
    while True:
        rows = server.query(
            'SELECT count(*) FROM resource r JOIN stack s '
            'ON r.stack_id = s.id WHERE s.name = ? AND s.owner_id IS NULL '
            'AND r.name = ? AND r.status_reason = ?', name, resource, reason)
        if rows[0][0]:
            return
        if time.monotonic() > deadline:
            raise _common.BenchError('%s/%s not held after %ds'
                                     % (name, resource, timeout))
        time.sleep(interval)


def continue_holds(hc, server, name):
    """Release the two holds with ``continue`` once both are reached."""
    for resource in CHANGED:
        wait_held(server, name, resource)
    for resource in CHANGED:
        hc.resources.signal(name, resource, data={
            'unset_hook': 'pre-update',
            protocol.SIGNAL_KEY: protocol.RELEASE_CONTINUE})


def held_events(server, name):
    return server.query(
        'SELECT count(*) FROM event e JOIN stack s ON e.stack_id = s.id '
        'WHERE s.name = ? AND s.owner_id IS NULL AND '
        'e.resource_status_reason LIKE ?', name,
        'Breakpoint % reached before %')[0][0]


def trial(server, hc, name, mode, version):
    with_bp = mode == MODES[1]
    cpu = server.cpu_seconds()
    began = time.perf_counter()
    hc.stacks.update(name, template=template(version),
                     environment=on_change_env() if with_bp else {})
    if with_bp:
        continue_holds(hc, server, name)
    done = server.wait_stack(name, 'UPDATE')
    return done - began, server.cpu_seconds() - cpu


def main():
    parser = _common.parser(__doc__)
    parser.add_argument('--control', action='store_true',
                        help='a third stack without breakpoints: the noise '
                             'floor (the run takes half as long again)')
    parser.add_count('--rounds', 'rounds', DEFAULT_ROUNDS, QUICK_ROUNDS)
    args = parser.parse_args()
    rounds = args.rounds
    clock = _common.start('change_cost: an update of %d resources, 2 '
                          "changed, with and without --breakpoint-on-change "
                          "'*'" % SIZE, args.quick)
    modes = MODES + ((CONTROL,) if args.control else ())
    wall = {mode: [] for mode in modes}
    cpu = {mode: [] for mode in modes}
    with _common.servers([_common.PLUGIN], keep=args.keep) as started:
        server = started[0]
        hc = server.client()
        names = {mode: 'cc-%d-%d' % (index, next(_serial))
                 for index, mode in enumerate(modes)}
        for name in names.values():
            hc.stacks.create(stack_name=name, template=template('v0'))
        for name in names.values():
            server.wait_stack(name, 'CREATE', timeout=900)
        version = itertools.count(1)
        for mode in modes:  # warm up, not counted
            trial(server, hc, names[mode], mode, 'w%d' % next(version))
        for round_ in range(rounds):
            shift = round_ % len(modes)
            for mode in modes[shift:] + modes[:shift]:
                seconds, used = trial(server, hc, names[mode], mode,
                                      'v%d' % next(version))
                wall[mode].append(seconds)
                cpu[mode].append(used)
            _common.note('round %d/%d done' % (round_ + 1, rounds))
        holds = held_events(server, names[MODES[1]])
        expected = 2 * (rounds + 1)
    _common.note('')
    _common.note('Diamond of %d OS::Heat::TestResource, 2 changed in place '
                 'per update. wall: seconds from the update call to '
                 'UPDATE_COMPLETE; cpu: server CPU seconds meanwhile.'
                 % SIZE)
    for metric, found in (('wall', wall), ('cpu', cpu)):
        for mode in modes:
            _common.note(_common.describe('%s  %s' % (metric, mode),
                                          found[mode]))
        if args.control:
            _common.note(_common.ratio(
                '%s  ratio of medians control/none' % metric,
                found[CONTROL], found[MODES[0]]))
        _common.note(_common.ratio(
            '%s  ratio of medians on-change/none' % metric,
            found[MODES[1]], found[MODES[0]]))
        _common.note(_common.paired(
            '%s  median of paired ratios' % metric, found[MODES[1]],
            found[MODES[0]]))
    _common.note('holds seen on the breakpoint stack: %d (expected %d: '
                 'only the 2 changed resources per update)'
                 % (holds, expected))
    value = _common.median(wall[MODES[1]]) / _common.median(wall[MODES[0]])
    _common.note('Summary: wall ratio %.3f, target <= 1.05: %s' % (
        value, 'met' if value <= 1.05 else 'MISSED'))
    clock.footer()
    return 0 if holds == expected else 1


if __name__ == '__main__':
    raise SystemExit(main())
