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
"""Release latency: native ``hook clear`` vs ``breakpoint continue``/``step``.

A chain ``A -> B -> C`` of ``OS::Heat::None``, held before creating ``B``,
then released by the real ``openstack`` command, run in-process:

* ``hook clear``, native hook (no marker), on the stock server
  (``[breakpoint] enabled = false``): Heat's own hook loop;
* ``hook clear``, native hook, on the plugin server: must stay stock;
* ``hook clear`` of a breakpoint on the plugin server: the stock command
  releasing a parked hold;
* ``breakpoint continue`` on the plugin server;
* ``breakpoint step`` on the plugin server (B goes on, C is held next;
  reported as not available if the command exits non-zero).

Latency is the time from the release API call (the resource-signal request)
returning to the moment ``B`` is seen starting its create (CREATE_IN_PROGRESS
with a reason that is not a breakpoint's, or CREATE_COMPLETE), polling the
resource through heatclient every 10 ms in a thread. Methods alternate trial
by trial. Target: <= 0.25 s median (stock hook clear: ~0.8 s, its hook loop
polls once a second).
"""

import itertools
import threading
import time

from heatclient.v1 import resources as hc_resources

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import reasons
from heat_breakpoint.model import registry

import _common

TARGET = 0.25
POLL = 0.01
TEMPLATE = _common.chain(['A', 'B', 'C'])
NATIVE_ENV = {'resource_registry': {'resources': {
    'B': {'hooks': 'pre-create'}}}}

# method: (server side, how B is held, command)
METHODS = {
    'hook clear (native hook, stock)': (_common.STOCK, 'hook', 'clear'),
    'hook clear (native hook, plugin on)': (_common.PLUGIN, 'hook',
                                            'clear'),
    'hook clear (breakpoint, plugin on)': (_common.PLUGIN, 'breakpoint',
                                           'clear'),
    'breakpoint continue': (_common.PLUGIN, 'breakpoint', 'continue'),
    'breakpoint step': (_common.PLUGIN, 'breakpoint', 'step'),
}
_serial = itertools.count()
_signal_returned = []


def _record_signal_returns():
    """Note when each resource-signal API call returns (in-process)."""
    original = hc_resources.ResourceManager.signal

    def signal(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        _signal_returned.append(time.perf_counter())
        return result
    hc_resources.ResourceManager.signal = signal


class Poller(threading.Thread):
    """Polls one resource through heatclient, recording every answer."""

    def __init__(self, hc, stack, resource, server=None):
        super().__init__(daemon=True)
        self.server = server
        self.hc, self.stack, self.resource = hc, stack, resource
        self.seen = []
        self.stopping = threading.Event()

    def run(self):
        while not self.stopping.is_set():
            try:
                rsrc = self.hc.resources.get(self.stack, self.resource)
                self.seen.append((time.perf_counter(), rsrc.resource_status,
                                  rsrc.resource_status_reason or ''))
            except Exception as exc:  # keep polling; the trial times out
                self.seen.append((time.perf_counter(), 'ERROR', str(exc)))
            if self.seen[-1][1] == 'CREATE_COMPLETE':
                return
            self.stopping.wait(POLL)


def started(status, reason):
    return status == 'CREATE_COMPLETE' or (
        status == 'CREATE_IN_PROGRESS' and not reasons.parse_held(reason))


def wait_held(server, hc, name, form):
    server.wait_event(name, 'B', _common.NATIVE_PAUSED % ('CREATE',
                                                          'pre-create'))
    if form == 'hook':
        return
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        rsrc = hc.resources.get(name, 'B')
        if (rsrc.resource_status == 'CREATE_IN_PROGRESS' and
                reasons.parse_held(rsrc.resource_status_reason)):
            return
        time.sleep(0.02)
    raise _common.BenchError('%s: B not held' % name)


def command(how, name):
    if how == 'clear':
        return ('stack', 'hook', 'clear', name, 'B')
    if how == 'continue':
        return ('stack', 'breakpoint', 'continue', name)
    return ('stack', 'breakpoint', 'step', name)


def trial(server, hc, method, poller=Poller):
    """Seconds from the signal returning to B starting, and more.

    ``poller(hc, stack, resource, server=server)``: a thread that records
    what B shows (:class:`Poller`, or one that watches the database).
    """
    side, form, how = METHODS[method]
    name = 'rl-%d' % next(_serial)
    env = NATIVE_ENV if form == 'hook' else \
        registry.apply_to_environment(
            {}, breakpoints.parse_names(['B']))
    hc.stacks.create(stack_name=name, template=TEMPLATE, environment=env)
    wait_held(server, hc, name, form)
    poller = poller(hc, name, 'B', server=server)
    poller.start()
    del _signal_returned[:]
    began = time.perf_counter()
    code, out, err = _common.run_openstack(server, *command(how, name))
    returned = time.perf_counter()
    if code != 0:
        poller.stopping.set()
        poller.join()
        return {'error': _common.osc_errors(err) or out or 'exit %s' % code,
                'name': name}
    poller.join(60)
    poller.stopping.set()
    if not _signal_returned:
        raise _common.BenchError('%s: %s sent no signal' % (name, method))
    signalled = _signal_returned[-1]
    start = next((when for when, status, reason in poller.seen
                  if when >= began and started(status, reason)), None)
    done = next((when for when, status, _reason in poller.seen
                 if status == 'CREATE_COMPLETE'), None)
    if start is None or done is None:
        raise _common.BenchError('%s: B did not complete after %s: %s' % (
            name, method, poller.seen[-3:]))
    if how == 'step':  # C is held now: let the stack finish
        run_continue(server, hc, name)
    return {'latency': max(0.0, start - signalled),
            'raw': start - signalled,
            'complete': max(0.0, done - signalled),
            'from_command': start - began,
            'command': returned - began,
            'polls': len(poller.seen), 'name': name}


def run_continue(server, hc, name):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        rsrc = hc.resources.get(name, 'C')
        if reasons.parse_held(rsrc.resource_status_reason):
            break
        if rsrc.resource_status == 'CREATE_COMPLETE':
            return
        time.sleep(0.05)
    _common.run_openstack(server, 'stack', 'breakpoint', 'continue', name)


def main():
    parser = _common.parser(__doc__)
    parser.add_count('--trials', 'trials per method', 20, 4)
    args = parser.parse_args()
    clock = _common.start('release latency: hook clear vs continue vs '
                          'step', args.quick)
    _record_signal_returns()
    with _common.servers((_common.STOCK, _common.PLUGIN),
                         keep=args.keep) as started:
        samples, unavailable = measure(
            {server.label: server for server in started}, args.trials)
    report(samples, unavailable)
    clock.footer()
    return 0


def measure(by_label, trials, poller=Poller):
    """Every method ``trials`` times, alternating: (samples, unavailable).

    ``by_label``: the server of each side (``stock``, ``plugin``); anything
    with a ``client()``, ``env`` and the database look-ups of
    ``_common.Server``.
    """
    methods = list(METHODS)
    samples = {method: [] for method in methods}
    unavailable = {}
    clients = {label: server.client() for label, server in by_label.items()}

    def run(method):
        side = METHODS[method][0]
        result = trial(by_label[side], clients[side], method, poller)
        if 'error' in result:
            unavailable[method] = result['error'].strip().splitlines()
            _common.note('%s: exits non-zero, not available: %s' % (
                method, ' / '.join(unavailable[method][-2:])))
            clean_up(by_label[side], clients[side], result['name'],
                     METHODS[method][1])
        return result

    for method in methods:  # warm-up, not counted; finds step missing
        run(method)
    _common.note('%d trials per method, methods alternating' % trials)
    for index in range(trials):
        shift = index % len(methods)
        for method in methods[shift:] + methods[:shift]:
            if method in unavailable:
                continue
            result = run(method)
            if 'latency' in result:
                samples[method].append(result)
    return samples, unavailable


def clean_up(server, hc, name, form):
    if form == 'hook':
        _common.run_openstack(server, 'stack', 'hook', 'clear', name, 'B')
    else:
        _common.run_openstack(server, 'stack', 'breakpoint', 'continue',
                              name)


def report(samples, unavailable, target=TARGET,
           watched='polled every %d ms via heatclient' % (POLL * 1000)):
    _common.note('')
    _common.note('Seconds from the release signal returning to B starting '
                 'its create (%s):' % watched)
    for method, results in samples.items():
        if method in unavailable:
            _common.note('%-44s not available yet (%s)' % (
                method, ' / '.join(unavailable[method][-2:])))
            continue
        _common.note(_common.describe(
            method, [r['latency'] for r in results]))
    _common.note('')
    _common.note('Informational:')
    for method, results in samples.items():
        if not results:
            continue
        _common.note(_common.describe(
            '  %s, to CREATE_COMPLETE' % method,
            [r['complete'] for r in results], width=60))
        _common.note(_common.describe(
            '  %s, command call to start' % method,
            [r['from_command'] for r in results], width=60))
        _common.note(_common.describe(
            '  %s, command duration' % method,
            [r['command'] for r in results], width=60))
        early = sum(1 for r in results if r['raw'] <= 0)
        if early:
            _common.note('  %s: %d trial(s) started before the signal '
                         'call returned (counted as 0)' % (method, early))
    _common.note('')
    native = _common.median(
        [r['latency'] for r in samples['hook clear (native hook, stock)']])
    _common.note('Summary (target for breakpoints: median <= %.2f s):'
                 % target)
    for method, results in samples.items():
        if method in unavailable or not results:
            continue
        value = _common.median([r['latency'] for r in results])
        verdict = ''
        if METHODS[method][1] == 'breakpoint':
            verdict = '  met' if value <= target else '  MISSED'
        speedup = ('  %.1fx native-on-stock' % (native / value)
                   if value and native == native else '')
        _common.note('  %-38s median %.3f s%s%s' % (method, value, speedup,
                                                    verdict))


if __name__ == '__main__':
    raise SystemExit(main())
