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
"""Plugin cost per resource check, timed directly on the real engine.

The end-to-end ``overhead.py`` compares two servers whose create+delete
times move by several percent from trial to trial on a shared machine,
more than the 2 % it looks for. This script times what the plugin itself
adds to each convergence check, in one local Heat running in this process
(plugin enabled), on real Heat objects: a freshly loaded Stack and
Resource per check, as Heat's worker loads them, and then, per check, the
calls the seam makes: the hold decision before the action, the pre-hook
check, two resource events (the plugin's part; the event itself is
Heat's) and the two ``Stack.time_elapsed`` checks. Side by side, in the
same run, the CPU a whole check costs stock Heat: create+delete of the
same diamond with ``[breakpoint] enabled = false``, divided by its
checks. The ratio ``(check + plugin) / check`` is what the plugin costs
per resource; a stack *with* breakpoints (``root`` -> N-2 -> ``sink``, a
delete-only breakpoint on ``sink``, so creates pass through the whole
decision) shows the cost of the decision itself. A held resource costs
more (its check runs twice: once to park, once after the release); that
fixed cost per hold is in ``overhead.py``'s one-breakpoint rows.
"""

import statistics
import tempfile
import threading
import time

import requests

import _common

SIZES = (50, 200)
# The targets: (check + plugin) / check, on the local server (SQLite).
TARGETS = {'no breakpoint': 1.002, 'with breakpoints': 1.005}


class InProcessHeat:
    """heat-breakpoint-server's Heat, in this process."""

    def __init__(self):
        from heat_breakpoint.server import cli
        from heat_breakpoint.server import local_heat
        self.state = tempfile.mkdtemp(prefix='heat-breakpoint-bench-')
        self.heat = local_heat.LocalHeat(self.state)
        self.heat.start()
        sock = cli.bind(0)
        self.httpd = cli.serve(self.heat.app, sock)
        threading.Thread(target=self.httpd.serve_forever,
                         daemon=True).start()
        self.url = 'http://127.0.0.1:%d/v1/admin' % sock.getsockname()[1]
        from heat.common import context
        self.context = context.RequestContext(project_id='admin',
                                              user_id='admin', is_admin=True)

    def create(self, name, template, env=None):
        body = {'stack_name': name, 'template': template}
        if env:
            body['environment'] = env
        answer = requests.post(self.url + '/stacks', json=body, timeout=60)
        answer.raise_for_status()
        return answer.json()['stack']['id']

    def delete(self, name, stack_id):
        requests.delete('%s/stacks/%s/%s' % (self.url, name, stack_id),
                        timeout=60).raise_for_status()

    def status(self, stack_id):
        from heat.objects import stack as stack_objects
        row = stack_objects.Stack.get_by_id(self.context, stack_id,
                                            show_deleted=True)
        return '%s_%s' % (row.action, row.status)

    def wait(self, stack_id, status, timeout=600):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.status(stack_id)
            if found == status:
                return
            if found.endswith('FAILED'):
                raise _common.BenchError('%s: %s' % (stack_id, found))
            time.sleep(0.05)
        raise _common.BenchError('%s: not %s in %ds'
                                 % (stack_id, status, timeout))

    def stop(self):
        import shutil
        self.httpd.shutdown()
        self.heat.stop()
        shutil.rmtree(self.state, ignore_errors=True)


def set_enabled(value):
    from oslo_config import cfg
    cfg.CONF.set_override('enabled', value, group='breakpoint')


def stock_check_cpu(heat, size, rounds):
    """CPU seconds per resource check of stock Heat (create + delete)."""
    set_enabled(False)
    samples = []
    try:
        for round_ in range(rounds):
            name = 'stock%d-%d' % (size, round_)
            began = time.process_time()
            stack_id = heat.create(name, _common.diamond(size))
            heat.wait(stack_id, 'CREATE_COMPLETE')
            heat.delete(name, stack_id)
            heat.wait(stack_id, 'DELETE_COMPLETE')
            samples.append((time.process_time() - began) / (2 * size))
    finally:
        set_enabled(True)
    return samples


def _stock_add_event(*args):
    pass


def plugin_calls(rsrc, stack):
    """The seam's calls of one create check, in the order a check makes them.

    The check's pipeline without Heat's action (its facts, the hold
    before, a released hold's note, a planned change, the hold after),
    Heat's own hook check, two events and the two ``time_elapsed``. The
    event writer is a no-op: the event itself is Heat's, not ours. The
    modules are imported once (:func:`load_plugin`), as the seam does.
    """
    check = facts.check(rsrc, 'CREATE', stack.t.id)
    parking.hold_before(rsrc, check, lambda: rsrc.properties)
    outcomes.resume(rsrc)
    planned_changes.before(rsrc, check, stack.t.id)
    facts.find_breakpoint(rsrc, 'CREATE')
    for status in ('IN_PROGRESS', 'COMPLETE'):
        events.add_event(rsrc, 'CREATE', status, 'state changed',
                         _stock_add_event)
    outcomes.run(rsrc, check, 'CREATE', lambda: rsrc.properties,
                 lambda: None)
    planned_changes.after()
    deadlines.time_elapsed(stack, 1.0)
    deadlines.time_elapsed(stack, 1.0)


deadlines = events = facts = outcomes = parking = planned_changes = None


def load_plugin():
    """Import the modules :func:`plugin_calls` calls (after Heat's start).

    Heat must see its threading backend chosen before it is imported:
    these modules import Heat, so they are imported here, once, rather
    than when this script is.
    """
    global deadlines, events, facts, outcomes, parking, planned_changes
    from heat_breakpoint.engine.check import events
    from heat_breakpoint.engine.check import facts
    from heat_breakpoint.engine.check import outcomes
    from heat_breakpoint.engine.check import parking
    from heat_breakpoint.engine.check import planned_changes
    from heat_breakpoint.engine.commands import deadlines


def plugin_check_cpu(heat, stack_id, repeats, walls=None):
    """CPU seconds the plugin adds to one check (this thread's CPU).

    ``walls``, a list, also gets each check's wall time (with the database
    round trips, which the thread's CPU leaves out).
    """
    from heat.engine import stack as parser

    load_plugin()
    samples = []
    names = None
    for index in range(repeats):
        # As Heat's worker does for every check: a fresh Stack, Resource.
        stack = parser.Stack.load(heat.context, stack_id=stack_id,
                                  force_reload=True)
        names = names or sorted(stack.t.resource_definitions(stack))
        rsrc = stack[names[index % len(names)]]
        began_wall = time.perf_counter()
        began = time.thread_time()
        plugin_calls(rsrc, stack)
        samples.append(time.thread_time() - began)
        if walls is not None:
            walls.append(time.perf_counter() - began_wall)
    return samples


def main():
    parser = _common.parser(__doc__)
    parser.add_count('--rounds', 'stock create+delete rounds per size',
                     4, 2)
    parser.add_count('--repeats', 'timed plugin checks per stack', 2000,
                     400)
    args = parser.parse_args()
    rounds = args.rounds
    repeats = args.repeats
    sizes = SIZES[:1] if args.quick else SIZES
    clock = _common.start('plugin cost per resource check, in-process',
                          args.quick)
    heat = InProcessHeat()
    results = []
    try:
        for size in sizes:
            stock = stock_check_cpu(heat, size, rounds)
            plain = heat.create('plain%d' % size, _common.diamond(size))
            armed = heat.create('armed%d' % size, _common.diamond(size), {
                'breakpoints': [{'resource': 'sink', 'action': 'delete'}]})
            heat.wait(plain, 'CREATE_COMPLETE')
            heat.wait(armed, 'CREATE_COMPLETE')
            no_bp = plugin_check_cpu(heat, plain, repeats)
            with_bp = plugin_check_cpu(heat, armed, repeats)
            results.append((size, stock, no_bp, with_bp))
    finally:
        heat.stop()
    report(results)
    clock.footer()
    return 0


def report(results):
    us = 1e6
    for size, stock, no_bp, with_bp in results:
        _common.note('')
        _common.note('-- diamond of %d OS::Heat::None, CPU per resource '
                     'check' % size)
        _common.note(_common.describe(
            '  stock check (create+delete / %d)' % (2 * size),
            [s * 1000 for s in stock], unit='ms', width=52))
        _common.note(_common.describe(
            '  plugin, stack without breakpoints',
            [s * us for s in no_bp], unit='us', width=52))
        _common.note(_common.describe(
            '  plugin, stack with breakpoints (not held)',
            [s * us for s in with_bp], unit='us', width=52))
    _common.note('')
    _common.note('Summary ((stock check + plugin) / stock check, medians; '
                 'targets <= %s):' % ', '.join(
                     '%.3f %s' % (value, title)
                     for title, value in TARGETS.items()))
    for size, stock, no_bp, with_bp in results:
        check = statistics.median(stock)
        for title, samples in (('no breakpoint', no_bp),
                               ('with breakpoints', with_bp)):
            value = (check + statistics.median(samples)) / check
            _common.note('  %3d resources, %-17s %.4f  %s' % (
                size, title, value, 'met' if value <= TARGETS[title]
                else 'MISSED'))


if __name__ == '__main__':
    raise SystemExit(main())
