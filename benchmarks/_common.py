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
"""What the end-to-end benchmarks share.

* :class:`Server`: one real local Heat (``python -m heat_breakpoint.server``)
  in a temporary state directory, with an extra config file; ``servers()``
  starts several side by side (``stock`` = ``[breakpoint] enabled =
  false``, ``plugin`` = enabled) and always stops them.
* Completion is watched in the server's own SQLite database (read-only, WAL
  readers never block Heat's writers) every few milliseconds, so the
  stopwatch resolution is a few ms and the watching costs the server
  nothing: no API polling competes with the engine for its GIL.
* Templates of ``OS::Heat::None`` in shapes that respect Heat's one-second
  sleep per leaf (independent) resource: fan-out, diamond, chain.
* Alternating A/B order, min/median/max lines and the ratio of medians.
* The real ``openstack`` command run in-process.
"""

import argparse
import contextlib
import os
import platform
import shutil
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from unittest import mock

from keystoneauth1 import session as ks_session

from heat_breakpoint.server import fixture

# the functional tier's helpers (one in-process OSC shell for both)
sys.path.insert(1, os.path.join(os.path.dirname(os.path.abspath(
    __file__)), '..'))
from tests import dap_adapter as _dap_adapter  # noqa: E402
from tests import osc_shell  # noqa: E402

STOCK = 'stock'
PLUGIN = 'plugin'
PRISTINE = 'pristine'
CONF = {
    STOCK: '[breakpoint]\nenabled = false\n',
    PLUGIN: '[breakpoint]\nenabled = true\n',
    PRISTINE: '[breakpoint]\nenabled = false\n',
}
SIDE_TITLE = {
    STOCK: 'stock (plugin disabled)',
    PLUGIN: 'plugin enabled',
    PRISTINE: 'pristine (seam not installed)',
}
# The ``pristine`` server: the same local server, but the engine seam is
# never installed (its install() is replaced before Heat loads the plugin),
# so Heat's resource methods run unwrapped, as in a Heat without this
# package's engine half. The API filter stays.
_PRISTINE_BOOT = (
    'import sys\n'
    'from heat_breakpoint.engine import seam\n'
    'seam.install = lambda: False\n'
    'from heat_breakpoint.server import cli\n'
    'sys.exit(cli.main(sys.argv[1:]))\n')
START_TIMEOUT = 180
_CLOCK_TICKS = os.sysconf('SC_CLK_TCK')
NATIVE_PAUSED = '%s paused until Hook %s is cleared'


class BenchError(Exception):
    pass


# ---------------------------------------------------------------------------
# Servers

class Server(fixture.LocalHeatProcess):
    """One local Heat process in its own state directory."""

    def __init__(self, label, workdir, conf_text):
        self.label = label
        self.conf = os.path.join(workdir, label + '.conf')
        with open(self.conf, 'w') as out:
            out.write(conf_text)
        super().__init__(
            os.path.join(workdir, label), config_files=[self.conf],
            boot=([sys.executable, '-c', _PRISTINE_BOOT]
                  if label == PRISTINE else None))
        self._db = None

    def launch(self):
        return super().launch(reset=True)

    def wait_ready(self, timeout=START_TIMEOUT):
        try:
            return super().wait_ready(timeout)
        except fixture.ServerStartError as exc:
            raise BenchError('%s %s' % (self.label, exc))

    def tail(self):
        return self.read_output()[-3000:]

    def stop(self):
        if self._db is not None:
            self._db.close()
            self._db = None
        super().stop()

    def cpu_seconds(self):
        """CPU time (user + system) the server process has used so far.

        Far less sensitive than wall time to what else the machine runs.
        """
        with open('/proc/%d/stat' % self.proc.pid) as stat:
            fields = stat.read().rsplit(')', 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS

    # -- watching Heat's database (read-only) -------------------------------

    @property
    def db(self):
        if self._db is None:
            path = os.path.join(self.state_dir, 'heat.sqlite')
            self._db = sqlite3.connect('file:%s?mode=ro' % path, uri=True,
                                       timeout=10, isolation_level=None,
                                       check_same_thread=False)
        return self._db

    def query(self, sql, *args):
        for attempt in range(50):
            try:
                return self.db.execute(sql, args).fetchall()
            except sqlite3.OperationalError:  # a checkpoint, rarely
                time.sleep(0.01)
        return self.db.execute(sql, args).fetchall()

    def stack_row(self, name):
        """(action, status, status_reason, deleted) of the top stack."""
        rows = self.query(
            'SELECT action, status, status_reason, deleted_at FROM stack '
            'WHERE name = ? AND owner_id IS NULL '
            'ORDER BY created_at DESC LIMIT 1', name)
        return rows[0] if rows else None

    def wait_stack(self, name, action, status='COMPLETE', timeout=900,
                   interval=0.005):
        """Wait for the stack to reach ACTION_STATUS; return the time."""
        deadline = time.monotonic() + timeout
        while True:
            row = self.stack_row(name)
            now = time.perf_counter()
            if row is not None:
                if row[0] == action and row[1] == status:
                    return now
                if row[1] == 'FAILED':
                    raise BenchError('%s on %s: %s_%s (%s)' % (
                        name, self.label, row[0], row[1], row[2]))
            if time.monotonic() > deadline:
                raise BenchError('%s on %s: no %s_%s after %ds (%r)' % (
                    name, self.label, action, status, timeout, row))
            time.sleep(interval)

    def wait_event(self, stack_name, resource, reason, timeout=300,
                   interval=0.005):
        """Wait for an event of the named top-level stack's resource."""
        deadline = time.monotonic() + timeout
        while True:
            rows = self.query(
                'SELECT count(*) FROM event e JOIN stack s '
                'ON e.stack_id = s.id WHERE s.name = ? AND '
                's.owner_id IS NULL AND e.resource_name = ? AND '
                'e.resource_status_reason = ?', stack_name, resource, reason)
            if rows[0][0]:
                return time.perf_counter()
            if time.monotonic() > deadline:
                raise BenchError('%s/%s on %s: no event %r after %ds' % (
                    stack_name, resource, self.label, reason, timeout))
            time.sleep(interval)

    def count_events(self, stack_name):
        """Events of the named top-level stack and its nested stacks."""
        return self.query(
            'WITH RECURSIVE tree(id) AS ('
            ' SELECT id FROM stack WHERE name = ? AND owner_id IS NULL'
            ' UNION SELECT s.id FROM stack s JOIN tree t'
            ' ON s.owner_id = t.id) '
            'SELECT count(*) FROM event WHERE stack_id IN tree',
            stack_name)[0][0]


@contextlib.contextmanager
def servers(labels, keep=False):
    """Start a server per label (side by side), yield them, stop them."""
    workdir = tempfile.mkdtemp(prefix='heat-breakpoint-bench-')
    started = [Server(label, workdir, CONF[label]) for label in labels]
    began = time.monotonic()
    try:
        for server in started:
            server.launch()
        for server in started:
            server.wait_ready()
        note('%d local Heat server(s) up in %.0fs: %s' % (
            len(started), time.monotonic() - began,
            ', '.join('%s on :%d' % (s.label, s.port) for s in started)))
        yield started
    finally:
        for server in started:
            server.stop()
        if keep:
            note('kept %s' % workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)


# ---------------------------------------------------------------------------
# Templates (OS::Heat::None unless told)

def _template(resources):
    return {'heat_template_version': '2018-08-31', 'resources': resources}


def none(depends_on=None):
    res = {'type': 'OS::Heat::None'}
    if depends_on:
        res['depends_on'] = list(depends_on)
    return res


def fan_out(dependents):
    """``root`` and ``dependents`` resources that each depend on it."""
    resources = {'root': none()}
    for index in range(dependents):
        resources['r%03d' % index] = none(['root'])
    return _template(resources)


def diamond(total):
    """``root`` -> ``total - 2`` middles -> ``sink``: one leaf either way.

    Create starts from ``root`` and delete from ``sink``, so Heat's
    one-second sleep per leaf resource is paid once in each direction.
    """
    middles = ['m%03d' % index for index in range(total - 2)]
    resources = {'root': none()}
    for name in middles:
        resources[name] = none(['root'])
    resources['sink'] = none(middles)
    return _template(resources)


def independent(count):
    return _template({'r%03d' % index: none() for index in range(count)})


def chain(names):
    resources = {}
    previous = None
    for name in names:
        resources[name] = none([previous] if previous else None)
        previous = name
    return _template(resources)


# ---------------------------------------------------------------------------
# Running and reporting

class Parser(argparse.ArgumentParser):
    """``--quick`` and ``--keep``, and counts that ``--quick`` makes smaller.

    A count declared with :meth:`add_count` and not given on the command
    line is its default, or its ``--quick`` value in a quick run; its help
    says both, so that no benchmark spells the rule again.
    """

    def __init__(self, doc):
        lines = doc.strip().splitlines()
        super().__init__(
            description=lines[0], epilog='\n'.join(lines[1:]),
            formatter_class=argparse.RawDescriptionHelpFormatter)
        self._counts = []
        self.add_argument('--quick', action='store_true',
                          help='a short smoke run (about 1-2 minutes)')
        self.add_argument('--keep', action='store_true',
                          help='keep the servers\' state directories and '
                               'logs')

    def add_count(self, flag, what, default, quick, type=int):
        action = self.add_argument(
            flag, type=type,
            help='%s (default %s; %s with --quick)' % (what, default, quick))
        self._counts.append((action.dest, default, quick))

    def parse_args(self, args=None, namespace=None):
        result = super().parse_args(args, namespace)
        for dest, default, quick in self._counts:
            if getattr(result, dest) is None:
                setattr(result, dest, quick if result.quick else default)
        return result


def parser(doc):
    return Parser(doc)


def start(title, quick):
    """The header printed, and the clock of the run's footer started."""
    header(title, quick)
    return Clock()


def at_once(function, items):
    """``function(item)`` for every item, each in a thread of its own.

    Waits for all; the first error raised in a thread is raised here.
    """
    errors = []

    def one(item):
        try:
            function(item)
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(item,)) for item in items]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


@contextlib.contextmanager
def requests_sent():
    """The (method, url) of every HTTP request keystoneauth sends inside."""
    real = ks_session.Session.request
    sent = []

    def counting(self, url, method, **kwargs):
        sent.append((method, url))
        return real(self, url, method, **kwargs)

    with mock.patch.object(ks_session.Session, 'request', counting):
        yield sent


def note(text):
    print(text, flush=True)


def header(title, quick):
    import heat
    try:
        from importlib import metadata
        heat_version = metadata.version('openstack-heat')
    except Exception:
        heat_version = getattr(heat, '__version__', '?')
    note('== %s%s' % (title, ' (--quick)' if quick else ''))
    note('   openstack-heat %s, Python %s, %d CPUs, %s, load average %s' % (
        heat_version, platform.python_version(), os.cpu_count() or 0,
        time.strftime('%Y-%m-%d %H:%M:%S'), load()))


def load():
    try:
        return '%.2f %.2f %.2f' % os.getloadavg()
    except OSError:
        return '?'


def order(labels, round_):
    """A/B, then B/A: alternate which side goes first, round by round."""
    labels = list(labels)
    return labels if round_ % 2 == 0 else labels[::-1]


def describe(label, samples, unit='s', width=44):
    if not samples:
        return '%-*s (no samples)' % (width, label)
    return '%-*s min %8.3f  median %8.3f  max %8.3f %s  (n=%d)' % (
        width, label, min(samples), statistics.median(samples),
        max(samples), unit, len(samples))


def ratio(label, numerator, denominator, width=44):
    if not numerator or not denominator:
        return '%-*s n/a' % (width, label)
    num = statistics.median(numerator)
    den = statistics.median(denominator)
    if not den:
        return '%-*s n/a (zero median)' % (width, label)
    return '%-*s %.3f' % (width, label, num / den)


def paired(label, numerator, denominator, width=44):
    """Median of per-pair ratios.

    The two trials of a pair run back to back, so drift in the machine's
    load cancels within a pair.
    """
    pairs = [a / b for a, b in zip(numerator, denominator) if b]
    if not pairs:
        return '%-*s n/a' % (width, label)
    return '%-*s %.3f (min %.3f, max %.3f, %d pairs)' % (
        width, label, statistics.median(pairs), min(pairs), max(pairs),
        len(pairs))


def median(samples):
    return statistics.median(samples) if samples else float('nan')


class Clock:
    """Wall time of the whole run, for the footer."""

    def __init__(self):
        self.began = time.monotonic()

    def footer(self):
        note('(run took %.0f s; load average now %s)' % (
            time.monotonic() - self.began, load()))


# ---------------------------------------------------------------------------
# The real OSC, in-process

forget_osc_clients = osc_shell.forget_osc_clients
run_openstack = osc_shell.run_openstack


def dap_adapter():
    """``heat-breakpoint dap`` driven as an editor does, stderr ours."""
    return _dap_adapter.Adapter(stderr=None)


def osc_errors(stderr):
    """stderr without OSC's plugin-loading noise."""
    return '\n'.join(line for line in stderr.splitlines()
                     if not line.startswith('Could not load '))
