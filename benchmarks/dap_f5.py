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
"""DAP F5: from pressing F5 on examples/app.yaml to the editor's first stop.

A real ``heat-breakpoint dap`` process is driven over its stdin/stdout as
VS Code drives it (``initialize``, ``launch``, ``initialized``, a
breakpoint, ``configurationDone``) with a breakpoint on ``db``, its
first resource, until the ``stopped`` event; then ``disconnect``.

* cold: no local Heat running, the adapter starts its own (from
  ``initialize``, while the editor configures);
* warm: the launch names a running local Heat (``"localHeat": <port>``,
  a ``heat-breakpoint-server --no-leaf-sleep`` started once before the
  runs, as a user leaves one running in a terminal; without
  ``--no-leaf-sleep`` Heat's one-second pause after its first leaf,
  ``web`` or ``db`` whichever it sends first, is in half of the runs).

Each run gives two times: from the ``launch`` request (sent once
``initialize`` is answered, as VS Code sends it), which the targets
judge (cold median <= 1.5 s, warm median <= 0.5 s), and from the
adapter's start (VS Code starts the adapter on F5: what the user waits
for, the adapter's own start of about 0.3 s included).
"""

import os
import statistics
import time

from heat_breakpoint.server import fixture

import _common

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       os.pardir, 'examples', 'app.yaml')
TARGETS = {'cold': 1.5, 'warm': 0.5}


def one_f5(stack, local_port=None):
    """One F5: seconds from the adapter's start and from launch."""
    began = time.perf_counter()
    adapter = _common.dap_adapter()
    try:
        adapter.request('initialize', adapterID='heat')
        adapter.wait(lambda m: m.get('command') == 'initialize')
        launch = {'template': os.path.abspath(EXAMPLE), 'stack': stack}
        if local_port is not None:
            launch['localHeat'] = local_port
        launched = time.perf_counter()
        adapter.request('launch', **launch)
        adapter.wait(lambda m: m.get('event') == 'initialized')
        adapter.request('setFunctionBreakpoints',
                        breakpoints=[{'name': 'db'}])
        adapter.request('configurationDone')
        at, _stopped = adapter.wait(lambda m: m.get('event') == 'stopped')
    finally:
        adapter.close()
    return at - began, at - launched


def main():
    parser = _common.parser(__doc__)
    parser.add_count('--runs', 'F5s each way', 10, 3)
    args = parser.parse_args()
    runs = args.runs
    clock = _common.start('dap F5: launch to the first stopped, app.yaml',
                          args.quick)
    found = {'cold': ([], []), 'warm': ([], [])}
    for run in range(runs):
        from_start, from_launch = one_f5('f5-cold-%d' % run)
        found['cold'][0].append(from_start)
        found['cold'][1].append(from_launch)
    with fixture.local_heat('dap-f5-', '--no-leaf-sleep') as server:
        for run in range(runs):
            from_start, from_launch = one_f5('f5-warm-%d' % run,
                                             server.port)
            found['warm'][0].append(from_start)
            found['warm'][1].append(from_launch)
    _common.note('')
    for way in ('cold', 'warm'):
        from_start, from_launch = found[way]
        _common.note(_common.describe('%s: adapter start -> stopped' % way,
                                      from_start))
        _common.note(_common.describe('%s: launch -> stopped' % way,
                                      from_launch))
    _common.note('')
    _common.note('Summary: ' + '; '.join(
        '%s median %.2f s from launch (target <= %.1f s: %s), %.2f s '
        'from the adapter\'s start' % (
            way, statistics.median(found[way][1]), TARGETS[way],
            'met' if statistics.median(found[way][1]) <= TARGETS[way]
            else 'MISSED', statistics.median(found[way][0]))
        for way in ('cold', 'warm')))
    clock.footer()
    return 0


if __name__ == '__main__':
    raise SystemExit(main())
