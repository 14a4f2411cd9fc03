#!/usr/bin/env python
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
"""Run Heat's own unit tests with the heat-breakpoint plugin installed.

Usage::

    python tools/heat_compat.py [options] [module ...]

The point is to prove that loading our stack lifecycle plugin (entry point
``heat.stack_lifecycle_plugins: breakpoint``) does not break Heat.  The
``--without-plugin`` flag hides that entry point in-process (nothing
installed is modified) so the same tests can be run as a baseline.

What the runner has to arrange, and how it does it:

* **oslo.service backend.**  Heat's tests need the *threading* backend, and
  it has to be selected before anything imports ``oslo_service`` services
  (``heat.tests.common`` selects it itself, but several test modules import
  Heat engine code first, which selects eventlet; the whole module then
  fails to import with ``BackendAlreadySelected``).  Every worker selects
  the threading backend before importing anything from Heat.  Heat 24
  (2025.1), written for eventlet, selects none: its tests run on the
  default backend, so the worker leaves the choice alone there.

* **Heat's ``etc/``.**  ``heat.tests.common.HeatTestCase`` (and one test in
  ``test_resource``) look for ``<dir containing the heat package>/etc/heat/
  {environment.d,templates}``, i.e. ``site-packages/etc/heat`` for an
  installed Heat.  The wheel installs those files to ``<prefix>/etc/heat``
  instead, so without help every test fails in setUp with "The Resource
  Type (AWS::RDS::DBInstance) could not be found".  Rather than writing into
  site-packages, the runner builds a temporary directory::

      <tmp>/heat     -> symlink to the installed heat package
      <tmp>/etc/heat -> symlink to <prefix>/etc/heat (or --etc-dir)

  and puts ``<tmp>`` first on the workers' ``sys.path``.  ``heat`` is then
  imported through the symlink, ``__file__`` paths are under ``<tmp>`` (the
  tests use ``os.path.abspath``, which does not resolve symlinks), and the
  tests find ``<tmp>/etc/heat``.  Entry points still come from the installed
  dist-info, so our plugin is discovered exactly as in a real heat-engine.

* **Proof that the plugin is loaded.**  Before running any test, each worker
  builds Heat's global environment the same way ``HeatTestCase.setUp`` does
  and checks that ``get_stack_lifecycle_plugins()`` contains
  ``('breakpoint', BreakpointPlugin)``; it checks again after the tests ran.
  With ``--without-plugin`` it checks the opposite, and that
  ``heat_breakpoint`` was never imported.  Any mismatch is a hard failure.

* **Import order.**  Workers import all selected test modules *before*
  building the global environment (as unittest/stestr discovery does).
  Heat's plugin_loader execs resource modules that are not yet in
  ``sys.modules`` as private copies, so building ``global_env()`` first
  makes ``test_environment.GlobalEnvLoadingTest`` compare two different
  copies of e.g. ``nova.server.Server`` and fail.

Tests run in ``--concurrency`` worker processes (default ``min(2, CPUs)``
or ``$HEAT_COMPAT_CONCURRENCY``), each executing every N-th test of the
sorted, scenario-expanded list and streaming results back as subunit v2.
``--all`` discovers the whole of ``heat.tests`` instead of the default
modules (some modules then need Heat's test deps ``ddt`` and ``oslotest``;
without them they show up as import failures).  The last line printed
is the summary ``N passed, M failed[, K skipped]``; the exit status is
non-zero if any test failed, a worker died, the plugin check failed or no
test ran.
"""

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

PLUGIN_NAMESPACE = 'heat.stack_lifecycle_plugins'
PLUGIN_NAME = 'breakpoint'
PLUGIN_TARGET = 'heat_breakpoint.engine.plugin:BreakpointPlugin'
PLUGIN_PACKAGE = 'heat_breakpoint'

DEFAULT_MODULES = [
    'heat.tests.test_resource',
    'heat.tests.test_environment',
    'heat.tests.test_stack_update',
    'heat.tests.test_lifecycle_plugin_utils',
    'heat.tests.test_convg_stack',
    # Convergence engine (worker / check_resource / sync points / scenarios).
    'heat.tests.engine.test_check_resource',
    'heat.tests.engine.test_engine_worker',
    'heat.tests.engine.test_sync_point',
    'heat.tests.convergence.test_converge',
]

# Files HeatTestCase needs under <project_dir>/etc/heat.
REQUIRED_ETC_FILES = [
    'environment.d/default.yaml',
    'templates/AWS_CloudWatch_Alarm.yaml',
    'templates/AWS_RDS_DBInstance.yaml',
]

# Pseudo-module meaning "discover all of heat.tests" (--all).
ALL = 'ALL'

EXIT_PLUGIN_CHECK = 3
EXIT_SETUP = 4


class CompatError(Exception):
    pass


# ---------------------------------------------------------------------------
# Worker side (runs in a subprocess, with <tmp> first on sys.path)
# ---------------------------------------------------------------------------

def _hide_plugin_entry_point():
    """Filter our entry point out of stevedore, in this process only."""
    from stevedore import extension

    original = extension.ExtensionManager.list_entry_points

    def list_entry_points(self):
        eps = original(self)
        if self.namespace != PLUGIN_NAMESPACE:
            return eps
        return [ep for ep in eps
                if not ep.value.startswith(PLUGIN_PACKAGE + '.')]

    extension.ExtensionManager.list_entry_points = list_entry_points
    extension.ExtensionManager.ENTRY_POINT_CACHE.pop(PLUGIN_NAMESPACE, None)


def _lifecycle_plugins():
    from heat.engine import resources
    return list(resources.global_env().get_stack_lifecycle_plugins())


def _check_plugin(expect_loaded, when):
    """Raise CompatError unless the plugin is (or is not) registered."""
    plugins = _lifecycle_plugins()
    desc = ', '.join('%s=%s.%s' % (n, c.__module__, c.__qualname__)
                     for n, c in plugins) or '(none)'
    mod_name, cls_name = PLUGIN_TARGET.split(':')
    ours = [(n, c) for n, c in plugins
            if n == PLUGIN_NAME and c.__module__ == mod_name
            and c.__qualname__ == cls_name]
    if expect_loaded:
        if not ours:
            try:
                importlib.import_module(mod_name)
                why = ('%s imports fine: is heat-breakpoint installed in '
                       'this venv (pip install -e .)?' % mod_name)
            except Exception as exc:
                why = 'importing %s fails: %s: %s' % (
                    mod_name, type(exc).__name__, exc)
            raise CompatError(
                'PLUGIN NOT LOADED (%s): %s lifecycle plugins are [%s]; '
                'expected (%r, %s). %s'
                % (when, PLUGIN_NAMESPACE, desc, PLUGIN_NAME, PLUGIN_TARGET,
                   why))
        from heat_breakpoint.engine.plugin import BreakpointPlugin
        if ours[0][1] is not BreakpointPlugin:
            raise CompatError('registered %s is not the importable '
                              'BreakpointPlugin class' % PLUGIN_TARGET)
    else:
        if ours:
            raise CompatError('--without-plugin but %s is still registered '
                              '(%s): [%s]' % (PLUGIN_TARGET, when, desc))
    return desc


def _seam_state():
    """Informational: did the plugin's seam wrap Heat's engine?"""
    try:
        from heat_breakpoint.engine import seam
    except Exception as exc:  # noqa
        return 'unknown (%s)' % exc
    probe = getattr(seam, 'installed', None)
    if callable(probe):
        return probe()
    return getattr(seam, 'INSTALLED', 'unknown')


def _heat_tests_select_threading():
    """Whether Heat's own tests run on oslo.service's threading backend.

    Heat 25 (2025.2) on selects it in ``heat.tests.common``; Heat 24
    (2025.1) is written for eventlet and its tests run on the default
    backend (eventlet): forcing threads there hangs its tests.
    """
    spec = importlib.util.find_spec('heat.tests.common')
    with open(spec.origin) as f:
        return 'BackendType.THREADING' in f.read()


def _select_threading_backend():
    if not _heat_tests_select_threading():
        return
    from oslo_service import backend
    backend.init_backend(backend.BackendType.THREADING)


def _configure_like_heat_test_case(tmp_root):
    """Point cfg at <tmp>/etc/heat exactly as HeatTestCase.setUp does."""
    from oslo_config import cfg

    import heat
    from heat.tests import common  # noqa: F401  (registers test setup)

    heat_dir = os.path.dirname(os.path.abspath(heat.__file__))
    if os.path.dirname(heat_dir) != tmp_root:
        raise CompatError('heat was imported from %s, not through %s; '
                          'etc/ would not be found' % (heat_dir, tmp_root))
    mod_dir = os.path.dirname(sys.modules['heat.tests.common'].__file__)
    project_dir = os.path.abspath(os.path.join(mod_dir, '../../'))
    for rel in REQUIRED_ETC_FILES:
        path = os.path.join(project_dir, 'etc', 'heat', rel)
        if not os.path.isfile(path):
            raise CompatError('Heat tests need %s, which is missing' % path)
    cfg.CONF.set_default('environment_dir', os.path.join(
        project_dir, 'etc', 'heat', 'environment.d'))
    cfg.CONF.set_default('template_dir', os.path.join(
        project_dir, 'etc', 'heat', 'templates'))


def _load_suite(modules, shard, nshards, tmp_root=None):
    import unittest

    loader = unittest.TestLoader()
    if modules == [ALL]:
        # Like Heat's .stestr.conf: test_path=./heat/tests, top_dir=./
        suite = loader.discover(os.path.join(tmp_root, 'heat', 'tests'),
                                pattern='test*.py', top_level_dir=tmp_root)
    else:
        suite = loader.loadTestsFromNames(modules)
    return shard_of(suite, shard, nshards)


def shard_of(suite, shard, nshards):
    """This worker's share of ``suite``, every scenario a test of its own."""
    import unittest

    import testscenarios

    tests = sorted(testscenarios.generate_scenarios(suite),
                   key=lambda t: t.id())
    return unittest.TestSuite(
        t for i, t in enumerate(tests) if i % nshards == shard)


def run_to_stream(suite, stream_fd):
    """Run ``suite``, its results as subunit on ``stream_fd``."""
    import subunit
    import testtools

    out = os.fdopen(stream_fd, 'wb', 0)
    result = testtools.ExtendedToStreamDecorator(
        subunit.StreamResultToBytes(out))
    result.startTestRun()
    try:
        suite.run(result)
    finally:
        result.stopTestRun()
        out.flush()
    return out


def worker_main(args):
    # Keep the real stdout for the subunit stream and the real stderr for
    # our own status lines; everything the tests print goes to the log.
    stream_fd = os.dup(1)
    status = os.fdopen(os.dup(2), 'w', buffering=1)

    def say(msg):
        status.write('[worker %d] %s\n' % (args.shard, msg))

    log = open(args.log, 'ab')
    os.dup2(log.fileno(), 1)
    os.dup2(log.fileno(), 2)

    try:
        _select_threading_backend()
        if args.without_plugin:
            _hide_plugin_entry_point()
        _configure_like_heat_test_case(args.tmp_root)
        # Import the test modules BEFORE building the global environment,
        # as stestr/unittest discovery would: heat's plugin_loader execs
        # resource modules that are not yet in sys.modules as private
        # copies, so building global_env() first makes tests that compare
        # classes (test_environment.GlobalEnvLoadingTest) see two
        # different copies of e.g. nova.server.Server.
        suite = _load_suite(args.modules, args.shard, args.shards,
                            args.tmp_root)
        desc = _check_plugin(not args.without_plugin, 'before tests')
        if args.shard == 0:
            say('%s plugins: [%s]' % (PLUGIN_NAMESPACE, desc))
            if not args.without_plugin:
                say('heat_breakpoint seam installed into Heat: %s'
                    % _seam_state())
        with open(args.log + '.planned', 'w') as f:
            f.write('%d\n' % suite.countTestCases())
    except CompatError as exc:
        say('ERROR: %s' % exc)
        return EXIT_PLUGIN_CHECK
    except Exception as exc:  # pragma: no cover - setup bug
        import traceback
        traceback.print_exc(file=status)
        say('ERROR during setup: %s (log: %s)' % (exc, args.log))
        return EXIT_SETUP

    run_to_stream(suite, stream_fd)
    try:
        _check_plugin(not args.without_plugin, 'after tests')
        if args.without_plugin and any(
                m == PLUGIN_PACKAGE or m.startswith(PLUGIN_PACKAGE + '.')
                for m in sys.modules):
            raise CompatError('--without-plugin but %s was imported during '
                              'the run' % PLUGIN_PACKAGE)
    except CompatError as exc:
        say('ERROR: %s' % exc)
        return EXIT_PLUGIN_CHECK
    if args.shard == 0 and not args.without_plugin:
        from heat.common import lifecycle_plugin_utils as lpu
        inst = [type(i).__name__ for i in (lpu.pp_class_instances or [])]
        say('lifecycle plugin instances held by Heat at end of run: %s'
            % (inst or '(none/reset by tests)'))
    return 0


# ---------------------------------------------------------------------------
# Parent side
# ---------------------------------------------------------------------------

def _find_heat_dir():
    spec = importlib.util.find_spec('heat')
    if spec is None or not spec.submodule_search_locations:
        raise CompatError('openstack-heat is not installed in %s'
                          % sys.prefix)
    heat_dir = os.path.realpath(list(spec.submodule_search_locations)[0])
    if not os.path.isdir(os.path.join(heat_dir, 'tests')):
        raise CompatError('%s has no tests/ (Heat unit tests missing)'
                          % heat_dir)
    return heat_dir


def _find_etc_dir(explicit):
    candidates = [explicit] if explicit else [
        os.environ.get('HEAT_COMPAT_ETC_DIR'),
        os.path.join(sys.prefix, 'etc', 'heat'),
        os.path.join(sys.base_prefix, 'etc', 'heat'),
        '/usr/local/etc/heat',
    ]
    for cand in filter(None, candidates):
        if all(os.path.isfile(os.path.join(cand, r))
               for r in REQUIRED_ETC_FILES):
            return os.path.realpath(cand)
    raise CompatError(
        "cannot find Heat's etc/heat (need %s); tried %s. Pass --etc-dir "
        "pointing at a heat source tree's etc/heat."
        % (', '.join(REQUIRED_ETC_FILES),
           ', '.join(filter(None, candidates))))


def make_tmp_root(etc_dir=None, parent=None):
    """Build <tmp>/{heat -> installed heat, etc/heat -> etc dir}."""
    heat_dir = _find_heat_dir()
    etc_dir = _find_etc_dir(etc_dir)
    root = os.path.realpath(tempfile.mkdtemp(prefix='heat-compat-',
                                             dir=parent))
    os.symlink(heat_dir, os.path.join(root, 'heat'))
    os.mkdir(os.path.join(root, 'etc'))
    os.symlink(etc_dir, os.path.join(root, 'etc', 'heat'))
    return root, heat_dir, etc_dir


class Collector(object):
    """Thread-safe aggregation of per-test results from all workers."""

    def __init__(self, verbose=False, progress_every=250):
        self.lock = threading.Lock()
        # A list, not a dict: Heat has duplicate test ids (e.g. two
        # scenarios named s11 in TestResourcePropDataUpdate).
        self.results = []
        self.failed = 0
        self.verbose = verbose
        self.progress_every = progress_every
        self.start = time.monotonic()

    def on_test(self, test):
        with self.lock:
            self.results.append(test)
            status = test['status']
            done = len(self.results)
            if status not in ('success', 'skip', 'xfail'):
                self.failed += 1
                print('%s: %s' % (status.upper(), test['id']), flush=True)
            elif self.verbose:
                print('%s: %s' % (status, test['id']), flush=True)
            if done % self.progress_every == 0:
                print('... %d tests done, %d failed, %.0fs'
                      % (done, self.failed, time.monotonic() - self.start),
                      flush=True)

    def counts(self):
        c = dict.fromkeys(('passed', 'failed', 'skipped', 'xfail'), 0)
        for t in self.results:
            s = t['status']
            if s == 'success':
                c['passed'] += 1
            elif s == 'skip':
                c['skipped'] += 1
            elif s == 'xfail':
                c['xfail'] += 1
            else:  # fail, uxsuccess, or never finished (worker died)
                c['failed'] += 1
        return c


def read_stream(pipe, on_test):
    """Feed a worker's subunit stream to ``on_test`` (one dict a test)."""
    import subunit
    import testtools

    result = testtools.StreamToDict(on_test)
    result.startTestRun()
    try:
        subunit.ByteStreamToStreamResult(
            pipe, non_subunit_name='stdout').run(result)
    finally:
        result.stopTestRun()


# -- the workers, as this runner and tools/heat_integration.py start them ---

def add_worker_arguments(p):
    """A worker's hidden options: that it is one, its log, its shard."""
    p.add_argument('--_worker', action='store_true', help=argparse.SUPPRESS)
    p.add_argument('--_log', dest='log', help=argparse.SUPPRESS)
    p.add_argument('--_shard', dest='shard', type=int, default=0,
                   help=argparse.SUPPRESS)
    p.add_argument('--_shards', dest='shards', type=int, default=1,
                   help=argparse.SUPPRESS)


def path_first(directory):
    """This process's environment with DIRECTORY first on PYTHONPATH."""
    env = dict(os.environ)
    env['PYTHONPATH'] = os.pathsep.join(
        [directory] + ([env['PYTHONPATH']] if env.get('PYTHONPATH')
                       else []))
    return env


def start_workers(script, options, tests, concurrency, log_of, env, cwd,
                  on_test):
    """A worker process of SCRIPT per shard, its stream read into on_test.

    Each runs ``SCRIPT --_worker OPTIONS... -- TESTS...`` on its shard of
    TESTS; returns ``[(shard, process, reader thread, log)]``.
    """
    workers = []
    for shard in range(concurrency):
        log = log_of(shard)
        cmd = ([sys.executable, script, '--_worker', '--_log', log,
                '--_shard', str(shard), '--_shards', str(concurrency)] +
               list(options) + ['--'] + list(tests))
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env,
                                cwd=cwd)
        reader = threading.Thread(target=read_stream, args=(
            proc.stdout, on_test))
        reader.start()
        workers.append((shard, proc, reader, log))
    return workers


def details_text(test, skip=()):
    """A test's details (tracebacks, captured output), but ``skip``'s."""
    chunks = []
    for name, content in sorted(test.get('details', {}).items()):
        try:
            text = content.as_text()
        except Exception:
            text = repr(b''.join(content.iter_bytes()))
        if text.strip() and name not in skip:
            chunks.append('--- %s ---\n%s' % (name, text.rstrip()))
    return '\n'.join(chunks)


def _tail(path, n=40):
    try:
        with open(path, 'rb') as f:
            lines = f.read().decode('utf-8', 'replace').splitlines()
    except OSError:
        return ''
    # Drop Heat's resource-registry chatter, which buries the real error.
    noise = (' is HIDDEN. ', ' is DEPRECATED. ', ' is UNSUPPORTED. ')
    lines = [ln for ln in lines if not any(x in ln for x in noise)]
    return '\n'.join(lines[-n:])


def run(args):
    started = time.monotonic()
    # Keep our lines ordered with the workers' (unbuffered) stderr lines.
    sys.stdout.reconfigure(line_buffering=True)
    tmp_root, heat_dir, etc_dir = make_tmp_root(args.etc_dir)
    try:
        print('heat-compat: heat from %s, etc from %s' % (heat_dir, etc_dir))
        print('heat-compat: mode: %s plugin, %d worker(s)' % (
            'WITHOUT' if args.without_plugin else 'WITH',
            args.concurrency))
        print('heat-compat: modules: %s' % ' '.join(args.modules),
              flush=True)

        env = path_first(tmp_root)
        env['PYTHONDONTWRITEBYTECODE'] = '1'

        collector = Collector(verbose=args.verbose)
        # cwd=tmp_root so nothing (e.g. a stray ./heat) shadows it.
        workers = start_workers(
            os.path.abspath(__file__),
            ['--_tmp-root', tmp_root] + (
                ['--without-plugin'] if args.without_plugin else []),
            args.modules, args.concurrency,
            lambda shard: os.path.join(tmp_root, 'worker-%d.log' % shard),
            env, tmp_root, collector.on_test)

        problems = []
        planned = 0
        for shard, proc, reader, log in workers:
            rc = proc.wait()
            reader.join()
            try:
                with open(log + '.planned') as f:
                    planned += int(f.read())
            except (OSError, ValueError):
                pass
            if rc != 0:
                if rc == EXIT_PLUGIN_CHECK:
                    problems.append('worker %d: plugin check FAILED' % shard)
                else:
                    problems.append('worker %d exited with status %d'
                                    % (shard, rc))
                    tail = _tail(log)
                    if tail:
                        print('--- worker %d log tail ---\n%s'
                              % (shard, tail))
        elapsed = time.monotonic() - started

        bad = sorted((t for t in collector.results
                      if t['status'] not in ('success', 'skip', 'xfail')),
                     key=lambda t: t['id'])
        for t in bad:
            print('=' * 70)
            print('%s: %s' % (t['status'].upper(), t['id']))
            print('-' * 70)
            print(details_text(t))
        if bad:
            print('=' * 70)
            print('Failed tests:')
            for t in bad:
                print('  %s' % t['id'])
        if args.keep_tmp:
            print('heat-compat: kept %s' % tmp_root)

        c = collector.counts()
        not_run = max(0, planned - len(collector.results))
        if not_run:
            problems.append('%d planned tests never reported a result'
                            % not_run)
        if c['passed'] + c['failed'] + c['xfail'] == 0:
            problems.append('no tests ran')
        for p in problems:
            print('heat-compat: ERROR: %s' % p)
        print('heat-compat: %s plugin, %d tests in %.1fs with %d worker(s)'
              % ('without' if args.without_plugin else 'with',
                 len(collector.results), elapsed, args.concurrency))
        summary = '%d passed, %d failed' % (c['passed'] + c['xfail'],
                                            c['failed'])
        if c['skipped']:
            summary += ', %d skipped' % c['skipped']
        if not_run:
            summary += ', %d not run' % not_run
        if c['xfail']:
            summary += ' (%d expected failures counted as passed)' % c['xfail']
        print(summary, flush=True)
        return 1 if (problems or c['failed']) else 0
    finally:
        if not args.keep_tmp:
            shutil.rmtree(tmp_root, ignore_errors=True)


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Run Heat's own unit tests with heat-breakpoint "
                    "installed (see module docstring).")
    p.add_argument('modules', nargs='*', metavar='module',
                   help='test modules/classes/ids (default: %s)'
                        % ' '.join(DEFAULT_MODULES))
    p.add_argument('--all', action='store_true',
                   help="run ALL of Heat's unit tests (discover heat.tests)"
                        ' instead of the default modules')
    p.add_argument('--without-plugin', action='store_true',
                   help='hide our %s entry point (in-process only) to get '
                        'a baseline' % PLUGIN_NAMESPACE)
    p.add_argument('-j', '--concurrency', type=int,
                   default=int(os.environ.get('HEAT_COMPAT_CONCURRENCY',
                                              min(2, os.cpu_count() or 1))),
                   help='worker processes (default: min(2, CPUs), or '
                        '$HEAT_COMPAT_CONCURRENCY)')
    p.add_argument('--etc-dir',
                   help="Heat's etc/heat directory (default: "
                        "$HEAT_COMPAT_ETC_DIR or <prefix>/etc/heat)")
    p.add_argument('--keep-tmp', action='store_true',
                   help='keep the temporary root (worker logs live there)')
    p.add_argument('-v', '--verbose', action='store_true',
                   help='print every test result')
    p.add_argument('--list-default-modules', action='store_true',
                   help='print the default modules and exit')
    # Internal: worker mode.
    add_worker_arguments(p)
    p.add_argument('--_tmp-root', dest='tmp_root', help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.all:
        if args.modules:
            p.error('--all and explicit modules are mutually exclusive')
        args.modules = [ALL]
    elif not args.modules:
        args.modules = list(DEFAULT_MODULES)
    if args.concurrency < 1:
        p.error('--concurrency must be >= 1')
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.list_default_modules:
        print('\n'.join(DEFAULT_MODULES))
        return 0
    if args._worker:
        return worker_main(args)
    try:
        return run(args)
    except CompatError as exc:
        print('heat-compat: ERROR: %s' % exc, file=sys.stderr)
        print('0 passed, 0 failed')
        return 2


if __name__ == '__main__':
    sys.exit(main())
