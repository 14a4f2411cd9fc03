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
"""What the plugin costs on the real stack: MariaDB, RabbitMQ, 2 engines.

The local benchmarks measure on one process with SQLite and in-process
messaging. This one runs their measurements on the distributed tier's
deployment (``tests/distributed/harness.py``: RabbitMQ and MariaDB on
loopback, heat-api, heat-engines), a ``stock`` cluster (``[breakpoint]
enabled = false``) and a ``plugin`` cluster side by side, each with 2
engines, its own database and its own RabbitMQ virtual host:

* release latency (``release_latency.py``'s trials): native ``hook
  clear`` on both sides, ``hook clear`` of a breakpoint, ``breakpoint
  continue`` and ``step``, from the release signal returning to the
  resource starting; target <= 0.05 s median;
* per-check cost (``plugin_cost.py``'s): the CPU of a stock check (the
  engines' CPU over create+delete of a diamond, divided by its checks)
  next to what the plugin adds to a check, timed in this process on the
  plugin cluster's stacks in MariaDB (each statement crossing TCP), with
  the statements it sends counted; targets <= 1.002 without breakpoints,
  <= 1.010 with. The whole check with the plugin on (the plugin cluster's
  engines over the same create+delete) is printed for information;
* 1,000 resources (``scale_1000.py``'s tree and 10 breakpoints): the
  breakpoints view and step latency while the 10 are held, then the CPU of
  all engines (every process of each engine's process group) over a create
  with the 10 breakpoints continued at the first hold vs without, each
  create on a fresh cluster (and a stock cluster's create, for
  information); target ratio <= 1.02;
* soak (``soak.py``'s cycles): create/step/continue/update/delete cycles
  with breakpoints on the plugin cluster and without on the stock one, at
  the same time; then rows of ours left (target 0) and the databases'
  rows and size (InnoDB, after ``OPTIMIZE TABLE``), as left and after
  ``heat-manage purge_deleted`` plus ``heat-breakpoint-manage purge``
  (target with / without <= 1.05).

RabbitMQ and MariaDB are installed with apt-get if missing (as root).
"""

import os
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(1, os.path.dirname(HERE))

import _common  # noqa: E402
import plugin_cost  # noqa: E402
import release_latency  # noqa: E402
import scale_1000  # noqa: E402
import soak  # noqa: E402

from heat_breakpoint.model import reasons  # noqa: E402
from tests.distributed import harness  # noqa: E402

SECTIONS = ('release', 'check', 'scale', 'soak')
ENGINES = 2
RELEASE_TARGET = 0.05
# (check + plugin) / check on MariaDB, where the check's read of the
# operation's state crosses TCP.
CHECK_TARGETS = {'no breakpoint': 1.002, 'with breakpoints': 1.010}
CHECK_SIZES = (50, 200)
HEAT_TABLES = ('stack', 'resource', 'resource_data', 'event',
               'resource_properties_data', 'raw_template', 'sync_point')
_CLOCK_TICKS = os.sysconf('SC_CLK_TCK')


# ---------------------------------------------------------------------------
# A cluster seen as the local benchmarks see a server

class Side:
    """One Heat cluster with what the local benchmarks call on a server.

    ``query`` takes the SQLite benchmarks' SQL (``?`` placeholders) and
    runs it on the cluster's MariaDB database, on a connection per thread
    in autocommit (every statement sees what the engines committed); the
    waits of :class:`_common.Server` then work as they are.
    """

    def __init__(self, label, cluster):
        self.label = label
        self.cluster = cluster
        self._local = threading.local()

    stack_row = _common.Server.stack_row
    wait_stack = _common.Server.wait_stack
    wait_event = _common.Server.wait_event

    @property
    def endpoint(self):
        return self.cluster.endpoint()

    @property
    def env(self):
        return self.cluster.env

    def client(self):
        return self.cluster.client()

    def query(self, sql, *args):
        conn = getattr(self._local, 'conn', None)
        if conn is None:
            conn = self._local.conn = self.cluster.mariadb.connect(
                database=self.cluster.database)
        with conn.cursor() as cur:
            cur.execute(sql.replace('?', '%s'), args or None)
            return cur.fetchall()

    def cpu_seconds(self):
        """CPU (user + system) of every process of every engine so far."""
        return sum(process_cpu(pid) for engine in
                   self.cluster.engines.values()
                   for pid in engine.group_pids())


def process_cpu(pid):
    try:
        with open('/proc/%d/stat' % pid) as stat:
            fields = stat.read().rsplit(')', 1)[1].split()
    except OSError:  # gone meanwhile
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


class Run:
    """The deployment and the clusters of one run, stopped at the end."""

    def __init__(self, log, keep=False):
        self.log = log
        self.keep = keep
        self.dep = None
        self._serial = 0

    def __enter__(self):
        harness.ensure_packages(log=self.log)
        import tempfile
        base = tempfile.mkdtemp(prefix='heat-breakpoint-distcost-')
        # Every temporary file of the run's processes in its directory:
        # MariaDB's (its tmpdir is $TMPDIR) vanished from a shared /tmp
        # in the middle of a query once.
        os.makedirs(os.path.join(base, 'tmp'))
        os.environ['TMPDIR'] = os.path.join(base, 'tmp')
        self.dep = harness.Deployment(base_dir=base)
        began = time.monotonic()
        self.dep.start_services()
        self.log('RabbitMQ and MariaDB up in %.0f s (%s)'
                 % (time.monotonic() - began, self.dep.base_dir))
        return self

    def __exit__(self, *exc):
        import shutil
        self.dep.stop()
        if self.keep:
            self.log('kept %s (configuration and every log)'
                     % self.dep.base_dir)
        else:
            shutil.rmtree(self.dep.base_dir, ignore_errors=True)

    def side(self, label):
        """A fresh cluster: its own database, vhost and 2 engines."""
        self._serial += 1
        name = 'cost%d-%s' % (self._serial, label)
        options = ({'enabled': False} if label == _common.STOCK
                   else {'enabled': True})
        began = time.monotonic()
        cluster = self.dep.add_cluster(name, engines=ENGINES, vhost=name,
                                       breakpoint_options=options)
        cluster.start()
        self.log('  cluster %s (%s, %d engines) up in %.0f s' % (
            name, _common.SIDE_TITLE[label], ENGINES,
            time.monotonic() - began))
        return Side(label, cluster)

    def pair(self):
        stock, plugin = self.side(_common.STOCK), self.side(_common.PLUGIN)
        return {_common.STOCK: stock, _common.PLUGIN: plugin}


def versions(run):
    found = []
    try:
        found.append('MariaDB ' + subprocess.run(
            [harness._which_mariadbd(), '--version'], capture_output=True,
            text=True).stdout.split()[2])
    except (IndexError, OSError, TypeError):
        pass
    try:
        found.append('RabbitMQ ' + run.dep.rabbit.ctl('version').strip())
    except harness.HarnessError:
        pass
    return ', '.join(found)


# ---------------------------------------------------------------------------
# Printing

def verdict(value, target):
    return 'met' if value <= target else 'MISSED'


def summary_line(title, value, target, unit='', width=46, digits=3):
    """``title  value  met (target <= x)``, as the local benchmarks print."""
    return '  %-*s %.*f%s  %s (target <= %s%s)' % (
        width, title, digits, value, unit, verdict(value, target),
        target, unit)


class DatabasePoller(release_latency.Poller):
    """B's row in the cluster's MariaDB, every 2 ms: the stopwatch.

    Through heatclient each look is a request to heat-api and an RPC call
    to an engine (tens of ms on this machine, and work for the engines that
    are starting B); the row is what that request would read.

    It also times Heat's own hop from B to C (B's CREATE_COMPLETE seen to
    C starting; a sync point and a check RPC, as a release's re-dispatch):
    what the release's latency is made of, measured beside it, in
    :attr:`hops` by stack name.
    """

    INTERVAL = 0.002
    SQL = ('SELECT r.name, r.action, r.status, r.status_reason FROM '
           'resource r JOIN stack s ON r.stack_id = s.id WHERE s.name = ? '
           "AND s.owner_id IS NULL AND r.name IN ('B', 'C')")
    hops = {}

    def run(self):
        b_done = None
        while not self.stopping.is_set():
            rows = {row[0]: row[1:] for row in self.server.query(
                self.SQL, self.stack)}
            now = time.perf_counter()
            if 'B' in rows:
                action, status, reason = rows['B']
                self.seen.append((now, '%s_%s' % (action, status),
                                  reason or ''))
                if self.seen[-1][1] == 'CREATE_COMPLETE' and not b_done:
                    b_done = now
            if b_done and 'C' in rows:
                action, status, reason = rows['C']
                if reasons.parse_held(reason):
                    return  # a step: C is held, it does not start
                if (action, status) in (('CREATE', 'IN_PROGRESS'),
                                        ('CREATE', 'COMPLETE')):
                    self.hops[self.stack] = now - b_done
                    return
            self.stopping.wait(self.INTERVAL)


def report_hops(samples, log):
    log('')
    log("Heat's own hop from B (CREATE_COMPLETE seen) to C starting, "
        'in the same trials (the floor of a re-dispatch):')
    for method, results in samples.items():
        hops = [DatabasePoller.hops[r['name']] for r in results
                if r['name'] in DatabasePoller.hops]
        if hops:
            log(_common.describe('  after %s' % method, hops, width=56))


POLLERS = {'db': DatabasePoller, 'api': release_latency.Poller}


def release_summary(samples):
    lines = []
    for method, results in samples.items():
        if results and release_latency.METHODS[method][1] == 'breakpoint':
            lines.append(summary_line(
                'release, %s' % method, _common.median(
                    [r['latency'] for r in results]), RELEASE_TARGET,
                ' s'))
    return lines


# ---------------------------------------------------------------------------
# Per-check cost

def check_cpu(side, size, name):
    """Engines' CPU seconds per check over a create+delete of a diamond."""
    hc = side.client()
    began = side.cpu_seconds()
    hc.stacks.create(stack_name=name, template=_common.diamond(size))
    side.wait_stack(name, 'CREATE', timeout=900, interval=0.02)
    hc.stacks.delete(name)
    scale_1000.wait(lambda: side.query(
        'SELECT 1 FROM stack WHERE name = ? AND deleted_at IS NOT NULL',
        name), 900, 0.02, '%s deleted' % name)
    return (side.cpu_seconds() - began) / (2 * size)


class InProcessHeat:
    """Heat's objects in this process, on the plugin cluster's database.

    What :func:`plugin_cost.plugin_check_cpu` needs (a ``context``); every
    statement goes to MariaDB over TCP, as in an engine.
    """

    def __init__(self, cluster):
        from heat.common import config as heat_config
        from heat.common import context
        from heat.engine import resources
        from oslo_config import cfg
        from oslo_log import log as logging
        logging.register_options(cfg.CONF)
        cfg.CONF(['--config-file', cluster.conf], project='heat',
                 prog='heat-engine', default_config_files=[],
                 default_config_dirs=[])
        heat_config.set_config_defaults()
        resources.initialise()
        self.context = context.RequestContext(project_id='admin',
                                              user_id='admin',
                                              is_admin=True)
        self.statements = []

    def statements_of_a_check(self, stack_id):
        """The SQL the plugin's part of one create check sends.

        Counted at the driver (PyMySQL's cursors, whichever engine or pool
        they come from): each is a round trip to MariaDB.
        """
        from heat.engine import stack as parser
        import pymysql.cursors

        stack = parser.Stack.load(self.context, stack_id=stack_id,
                                  force_reload=True)
        rsrc = stack[sorted(stack.t.resource_definitions(stack))[1]]
        plugin_cost.load_plugin()
        statements = []
        original = pymysql.cursors.Cursor.execute

        def execute(cursor, query, args=None):
            statements.append(' '.join(str(query).split()))
            return original(cursor, query, args)
        pymysql.cursors.Cursor.execute = execute
        try:
            plugin_cost.plugin_calls(rsrc, stack)
        finally:
            pymysql.cursors.Cursor.execute = original
        return statements


def per_check(sides, sizes, rounds, repeats, log):
    """Stock and plugin checks' CPU, the plugin's part, its statements."""
    plugin = sides[_common.PLUGIN]
    heat = InProcessHeat(plugin.cluster)
    results = []
    for size in sizes:
        whole = {_common.STOCK: [], _common.PLUGIN: []}
        for round_ in range(rounds):
            for label in _common.order((_common.STOCK, _common.PLUGIN),
                                       round_):
                whole[label].append(check_cpu(
                    sides[label], size, 'check%d-%d' % (size, round_)))
        hc = plugin.client()
        plain = hc.stacks.create(stack_name='plain%d' % size,
                                 template=_common.diamond(size))
        armed = hc.stacks.create(
            stack_name='armed%d' % size, template=_common.diamond(size),
            environment={'breakpoints': [{'resource': 'sink',
                                          'action': 'delete'}]})
        plugin.wait_stack('plain%d' % size, 'CREATE', timeout=900)
        plugin.wait_stack('armed%d' % size, 'CREATE', timeout=900)
        parts = {}
        for title, created in (('no breakpoint', plain),
                               ('with breakpoints', armed)):
            walls = []
            cpu = plugin_cost.plugin_check_cpu(
                heat, created['stack']['id'], repeats, walls)
            parts[title] = (cpu, walls, heat.statements_of_a_check(
                created['stack']['id']))
        log('  %d resources: %d stock and %d plugin create+delete, %d '
            'timed plugin checks per stack' % (size, rounds, rounds,
                                               repeats))
        results.append((size, whole, parts))
    return results


def report_per_check(results, log):
    us = 1e6
    for size, whole, parts in results:
        log('')
        log('-- diamond of %d OS::Heat::None, per resource check' % size)
        for label in (_common.STOCK, _common.PLUGIN):
            log(_common.describe(
                '  %s, engines CPU (create+delete / %d)'
                % (label, 2 * size), [s * 1000 for s in whole[label]],
                unit='ms', width=56))
        for title, (cpu, walls, statements) in parts.items():
            log(_common.describe('  plugin part, %s, CPU' % title,
                                 [s * us for s in cpu], unit='us',
                                 width=56))
            log(_common.describe('  plugin part, %s, wall' % title,
                                 [s * us for s in walls], unit='us',
                                 width=56))
            log('  plugin part, %s: %d SQL statement(s) per check%s' % (
                title, len(statements), ''.join(
                    '\n      %s' % text[:150] for text in statements)))


def per_check_summary(results):
    lines = []
    for size, whole, parts in results:
        check = statistics.median(whole[_common.STOCK])
        for title, (cpu, _walls, _statements) in parts.items():
            lines.append(summary_line(
                '(check + plugin) / check, %d, %s' % (size, title),
                (check + statistics.median(cpu)) / check,
                CHECK_TARGETS[title], digits=4))
        lines.append('  %-46s %.3f  (information: whole engines, '
                     'noisy)' % ('plugin / stock check CPU, %d' % size,
                                 statistics.median(whole[_common.PLUGIN]) /
                                 check))
    return lines


# ---------------------------------------------------------------------------
# 1,000 resources

def scale(run, rounds, list_samples, log):
    found = {'cpu': {}, 'wall': {}}
    side = run.side(_common.PLUGIN)
    found['list'], found['step'], found['all_next'] = \
        scale_1000.list_and_step(side, side.client(), log, list_samples)
    log('  list and step done')
    side.cluster.stop()
    kinds = (('plugin', True), ('plugin', False), ('stock', False))
    for round_ in range(rounds):
        for label, with_bp in _common.order(kinds, round_):
            key = (label, with_bp)
            side = run.side(label)
            began = time.monotonic()
            found['cpu'].setdefault(key, []).append(scale_1000.timed_create(
                side, side.client(), 'scale-%d' % round_, with_bp))
            found['wall'].setdefault(key, []).append(
                time.monotonic() - began)
            side.cluster.stop()
            log('  round %d, %s, %s: %.1f s CPU of the engines, %.1f s '
                'wall' % (round_, label, 'with breakpoints' if with_bp
                          else 'without', found['cpu'][key][-1],
                          found['wall'][key][-1]))
    return found


SCALE_TITLES = {('plugin', True): 'plugin, 10 bps continued',
                ('plugin', False): 'plugin, no breakpoints',
                ('stock', False): 'stock, no breakpoints'}


def report_scale(found, log):
    log('')
    log('-- %d resources, %d breakpoints' % (
        scale_1000.count_resources(), len(scale_1000.BREAKPOINTS)))
    log(_common.describe('  breakpoint list (view, API), s', found['list']))
    log(_common.describe('  step to the first next held, s', found['step']))
    log(_common.describe('  step to all %d next held, s' % scale_1000.NEXT,
                         found['all_next']))
    for key, title in SCALE_TITLES.items():
        log(_common.describe('  create, %s, engines CPU' % title,
                             found['cpu'].get(key, [])))
    for key, title in SCALE_TITLES.items():
        log(_common.describe('  create, %s, wall' % title,
                             found['wall'].get(key, [])))


def scale_summary(found):
    cpu = found['cpu']
    lines = [
        summary_line('breakpoint list at 1,000', statistics.median(
            found['list']), scale_1000.LIST_TARGET, ' s', digits=4),
        summary_line('step latency at 1,000', statistics.median(
            found['step']), scale_1000.STEP_TARGET, ' s', digits=4),
        summary_line('create CPU, 10 bps continued / none', (
            statistics.median(cpu[('plugin', True)]) /
            statistics.median(cpu[('plugin', False)])),
            scale_1000.CPU_TARGET)]
    if cpu.get(('stock', False)):
        lines.append('  %-46s %.3f  (information)' % (
            'create CPU, plugin none / stock', statistics.median(
                cpu[('plugin', False)]) / statistics.median(
                    cpu[('stock', False)])))
    return lines


# ---------------------------------------------------------------------------
# Soak

def ours(side):
    counts = {table: side.query('SELECT count(*) FROM %s' % table)[0][0]
              for table in soak.OURS}
    counts['breakpoint_released'] = side.query(
        "SELECT count(*) FROM resource_data WHERE "
        "`key` = 'breakpoint_released'")[0][0]
    return counts


def heat_rows(side):
    return {table: side.query('SELECT count(*) FROM %s' % table)[0][0]
            for table in HEAT_TABLES}


def compacted(side):
    """Bytes of the database's tables once rebuilt (InnoDB pages)."""
    tables = [row[0] for row in side.query(
        'SELECT table_name FROM information_schema.tables WHERE '
        'table_schema = ?', side.cluster.database)]
    for table in tables:
        side.query('OPTIMIZE TABLE `%s`' % table)
    return int(side.query(
        'SELECT SUM(data_length + index_length) FROM '
        'information_schema.tables WHERE table_schema = ?',
        side.cluster.database)[0][0])


def soak_side(side, cycles, with_breakpoints, log, found):
    hc = side.client()
    began = time.monotonic()
    try:
        for index in range(cycles):
            soak.cycle(side, hc, index, with_breakpoints)
            if (index + 1) % 25 == 0:
                log('  %s: %d cycles, %.0f s' % (
                    side.label, index + 1, time.monotonic() - began))
    except Exception as exc:  # reported with the figures
        found['error'] = '%s: %s' % (type(exc).__name__, exc)
    found['seconds'] = time.monotonic() - began


def soak_both(run, cycles, log):
    """The two sides' cycles at the same time; then what is left."""
    sides = run.pair()
    found = {_common.STOCK: {}, _common.PLUGIN: {}}
    threads = [threading.Thread(target=soak_side, args=(
        sides[label], cycles, label == _common.PLUGIN, log, found[label]))
        for label in found]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for label, side in sides.items():
        side.cluster.stop()
        conf = side.cluster.conf
        result = found[label]
        result['rows'] = ours(side)
        result['heat_rows'] = heat_rows(side)
        result['size'] = compacted(side)
        soak.manage('heat-breakpoint-manage', conf, 'purge')
        result['rows_purged'] = ours(side)
        result['purge_deleted'] = soak.manage(
            'heat-manage', conf, 'purge_deleted', '-g', 'seconds', '0',
            check=False)
        result['heat_rows_purged'] = heat_rows(side)
        result['size_purged'] = compacted(side)
    return found


def report_soak(found, cycles, log):
    for label, title in ((_common.PLUGIN, 'plugin, with breakpoints'),
                         (_common.STOCK, 'stock, without breakpoints')):
        result = found[label]
        log('')
        log('-- soak, %s: %d cycles in %.0f s%s' % (
            title, cycles, result['seconds'],
            ' (STOPPED: %s)' % result['error'] if 'error' in result
            else ''))
        log('  rows of ours left by the run:      %s' % result['rows'])
        log('  after purge_deleted + our purge:   %s'
            % result['rows_purged'])
        log("  Heat's rows as left:               %s" % result['heat_rows'])
        log("  ... after purge_deleted + purge:   %s"
            % result['heat_rows_purged'])
        soak.report_size(log, result, 'rebuilt')


def soak_summary(found):
    plugin, stock = found[_common.PLUGIN], found[_common.STOCK]
    left = sum(plugin['rows'].values())
    return [
        '  %-46s %d  %s (target 0)' % ('rows of ours left, with breakpoints',
                                       left, 'met' if left == 0
                                       else 'MISSED'),
        '  %-46s %.3f  (information)' % (
            'database with / without, as left',
            plugin['size'] / float(stock['size'])),
        summary_line('database with / without, after purge',
                     plugin['size_purged'] / float(stock['size_purged']),
                     soak.TARGET)]


# ---------------------------------------------------------------------------

def parse_args(argv=None):
    parser = _common.parser(__doc__)
    parser.add_argument('--sections',
                        help='which to run, comma-separated, of %s (default '
                             'all; with --quick all but scale)'
                             % ', '.join(SECTIONS))
    parser.add_count('--trials', 'release trials per method', 20, 3)
    parser.add_argument('--poll', choices=sorted(POLLERS), default='db',
                        help='how the release trials watch B: its row in '
                             'MariaDB (default) or through heatclient '
                             'every 10 ms, as release_latency.py does')
    parser.add_count('--rounds', 'create+delete rounds per side and size '
                     'for the per-check cost', 4, 2)
    parser.add_count('--repeats', 'timed plugin checks per stack', 1000,
                     200)
    parser.add_argument('--scale-rounds', type=int,
                        help='1,000-resource creates per kind (default 2; '
                             'with --quick the scale section is skipped '
                             'unless named in --sections)')
    parser.add_count('--cycles', 'soak cycles per side', 200, 10)
    args = parser.parse_args(argv)
    if args.sections is None:
        sections = [s for s in SECTIONS if not (args.quick and s == 'scale')]
    else:
        sections = [s.strip() for s in args.sections.split(',')
                    if s.strip()]
    unknown = sorted(set(sections) - set(SECTIONS))
    if unknown:
        parser.error('unknown section(s) %s; the sections are %s'
                     % (', '.join(unknown), ', '.join(SECTIONS)))
    args.sections = sections
    quick = args.quick
    args.scale_rounds = args.scale_rounds or (1 if quick else 2)
    args.sizes = CHECK_SIZES[:1] if quick else CHECK_SIZES
    return args


def main(argv=None):
    args = parse_args(argv)
    clock = _common.start('distributed cost: MariaDB + RabbitMQ, %d '
                          'engines per side' % ENGINES, args.quick)
    log = _common.note
    summary = []
    failed = []

    def section(name, function, *argv):
        """Run one section; a failure is reported, the others still run."""
        try:
            summary.extend(function(*argv))
        except Exception as exc:  # noqa: reported with the figures
            import traceback
            traceback.print_exc()
            failed.append(name)
            summary.append('  %-46s FAILED: %s: %s' % (
                name, type(exc).__name__, exc))
    with Run(log, args.keep) as run:
        log('   %s; sections: %s' % (versions(run),
                                     ', '.join(args.sections)))
        if {'release', 'check'} & set(args.sections):
            sides = run.pair()
            if 'release' in args.sections:
                section('release', release_section, sides, args, log)
            if 'check' in args.sections:
                section('check', check_section, sides, args, log)
            for side in sides.values():
                side.cluster.stop()
        if 'scale' in args.sections:
            section('scale', scale_section, run, args, log)
        if 'soak' in args.sections:
            section('soak', soak_section, run, args, log)
    log('')
    log('Summary (medians; the machine was shared, load average %s):'
        % _common.load())
    for line in summary:
        log(line)
    clock.footer()
    return 1 if failed else 0


def release_section(sides, args, log):
    log('release latency, %d trials per method, B watched %s'
        % (args.trials, 'in MariaDB every 2 ms' if args.poll == 'db'
           else 'through heatclient'))
    release_latency._record_signal_returns()
    samples, unavailable = release_latency.measure(
        sides, args.trials, POLLERS[args.poll])
    release_latency.report(
        samples, unavailable, RELEASE_TARGET,
        **({'watched': 'its row in MariaDB, every 2 ms'}
           if args.poll == 'db' else {}))
    if args.poll == 'db':
        report_hops(samples, log)
    return release_summary(samples)


def check_section(sides, args, log):
    log('')
    log('per-check cost')
    results = per_check(sides, args.sizes, args.rounds, args.repeats, log)
    report_per_check(results, log)
    return per_check_summary(results)


def scale_section(run, args, log):
    log('')
    log('1,000 resources, %d create round(s)' % args.scale_rounds)
    found = scale(run, args.scale_rounds, 5 if args.quick else 20, log)
    report_scale(found, log)
    return scale_summary(found)


def soak_section(run, args, log):
    log('')
    log('soak, %d cycles per side, both sides at once' % args.cycles)
    found = soak_both(run, args.cycles, log)
    report_soak(found, args.cycles, log)
    return soak_summary(found)


if __name__ == '__main__':
    raise SystemExit(main())
