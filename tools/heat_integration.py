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
"""Run Heat's own integration tests against the local server, three ways.

Usage::

    python tools/heat_integration.py [--subset] [--ways W,...] [test ...]

Heat ships its functional integration tests in the wheel
(``heat_integrationtests.functional``), written by Heat's developers
against a real Heat API. This runs them, unmodified, against
``heat-breakpoint-server`` (a fresh one per way, on a free port):

``plugin``
    the local server as shipped (our engine plugin and API filter);
``stock``
    the same server with our ``heat.stack_lifecycle_plugins`` entry point
    hidden (in that process only) and Heat's own ``noauth`` pipeline: the
    baseline;
``breakpoints``
    the ``plugin`` server, with ``breakpoints: ['*']`` added to the
    environment of every stack create and update the tests send, and a
    loop here releasing every hold with the client manager's ``continue``
    (``heatclient_ext.v1``), as a user would.

What the runner arranges:

* ``tools/heat_integration/tempest/config.py`` stands in for tempest's
  config module (``CONF.heat_plugin``), first on the test processes'
  ``sys.path``; ``HEAT_URL`` and ``OS_NO_CLIENT_AUTH=True`` send heatclient
  straight to the server. The tests' Keystone catalog look-up answers the
  server's URL for ``orchestration`` and "no endpoint" for any other
  service, as a cloud with only Heat would.
* Tests that need a service the local server does not have (Nova,
  Neutron, Swift, Keystone, RabbitMQ) are skipped through the tests' own
  ``skip_functional_test_list``, each with its reason (``NEEDS``).
* Tests that expect another Heat release's behaviour are known
  differences (``KNOWN``): their failure is reported as expected, with the
  reason, in every way.

Each way prints a table per module (passed/failed/skipped); then the
differences between the ways, each explained. The exit status is
non-zero when a test fails with the plugin or with breakpoints that
passes stock, when a server or a worker broke, or when nothing ran. The
last line is the summary. ``--subset`` runs ``SUBSET`` (CI); the default
is every module that needs no other service (``MODULES``).
"""

import argparse
import collections
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import threading
import time

from heat_breakpoint.server import fixture

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STAND_IN = os.path.join(HERE, 'heat_integration')
PACKAGE = 'heat_integrationtests.functional'

PLUGIN, STOCK, BREAKPOINTS = WAYS = ('plugin', 'stock', 'breakpoints')
#: Ways whose failures count against us (stock is the referee).
JUDGED = (PLUGIN, BREAKPOINTS)
EVERY_RESOURCE = ['*']

#: The modules whose tests need nothing but Heat (all but a few tests of
#: them; those are in NEEDS).
MODULES = [
    'test_abandon_adopt',
    'test_admin_actions',
    'test_conditions',
    'test_create_update',
    'test_default_parameters',
    'test_delete',
    'test_env_merge',
    'test_heat_autoscaling',
    'test_immutable_parameters',
    'test_nested_get_attr',
    'test_preview_update',
    'test_purge',
    'test_resource_chain',
    'test_resource_group',
    'test_simultaneous_update',
    'test_software_deployment_group',
    'test_stack_cancel',
    'test_template_resource',
    'test_template_versions',
    'test_update_restricted',
    'test_versionnegotiation',
    'test_conditional_exposure',
]
#: Modules left out, and why (each needs a service the server lacks).
LEFT_OUT = {
    'test_autoscaling': 'AWS::EC2::Instance (Nova)',
    'test_aws_stack': 'Swift',
    'test_cancel_update': 'OS::Nova::Server, OS::Neutron::*',
    'test_instance_group': 'AWS::EC2::Instance (Nova)',
    'test_keystone_user_with_domain': 'Keystone',
    'test_notifications': 'RabbitMQ notifications',
    'test_replace_deprecated': 'OS::Nova::Server',
    'test_snapshot_restore': 'OS::Nova::Server, OS::Neutron::*',
    'test_swiftsignal_update': 'Swift',
    'test_translation': 'OS::Neutron::*',
    'test_validation': 'OS::Nova::Server',
}
#: CI's share: nested stacks, groups, replacements, cancel, adopt and
#: abandon, conditions; a few minutes each way.
SUBSET = [
    'test_abandon_adopt',
    'test_conditions',
    'test_nested_get_attr',
    'test_resource_group.ResourceGroupTest',
    'test_template_resource.TemplateResourceUpdateTest',
    'test_template_resource.TemplateResourceSuspendResumeTest',
    'test_stack_cancel',
    'test_update_restricted',
]
#: Tests skipped (through the tests' own skip list) and why: each needs
#: something the local server does not have.
NEEDS = {
    'RoleBasedExposureTest.test_non_admin_forbidden_create_resources':
        'a caller without the admin role (noauth makes every caller admin)',
    'ServiceBasedExposureTest.test_unavailable_resources_not_created':
        'a Nova flavor (instance_type)',
    'UpdateStackTest.test_stack_update_flavor_volume':
        'OS::Nova::Server and a Nova flavor',
    'HeatAutoscalingTest.test_asg_cooldown':
        'Keystone (a scaling policy creates a stack user)',
    'HeatAutoscalingTest.test_asg_scale_down_min_size':
        'Keystone (a scaling policy creates a stack user)',
    'HeatAutoscalingTest.test_asg_scale_up_max_size':
        'Keystone (a scaling policy creates a stack user)',
    'HeatAutoscalingTest.test_path_attrs':
        'Keystone (a scaling policy creates a stack user)',
    'AutoScalingGroupUpdateWithNoChanges':
        'Keystone (a scaling policy creates a stack user)',
    'SoftwareDeploymentGroupTest':
        'Keystone (OS::Heat::SoftwareConfig needs an orchestration endpoint '
        'in the caller\'s catalog, a deployment a stack user)',
    'PurgeTest':
        "heat-manage purge_deleted on Heat's database, which fails on "
        "SQLite in Heat 27 ('This Connection is closed')",
}
#: Tests that expect another Heat release: 'Class.test' -> reason.
KNOWN = {
    'ResourceGroupTest.test_resource_group_zero_novalidate':
        "expects Heat's older wording of a nested validation error "
        "(\"...resources.random: : Value 'BAD' is not an integer\"); "
        "Heat 27 says \"ValueError: ...resources.random: Value 'BAD' is "
        "not an integer\"",
}
#: Differences of the breakpoints way that are the feature working as
#: designed: 'Class.test' -> why.
_CANCELLED_WHILE_HELD = (
    'the test cancels while test1 shows %s_IN_PROGRESS and expects it to '
    'finish; when the cancel comes before the release loop, test1 is held '
    'by its breakpoint and has not started, and a cancel wins over a '
    'release: it never starts (stock Heat lets a running resource '
    'complete); it passes when the release comes first')
BY_DESIGN = {
    'StackCancelTest.test_cancel_create_without_rollback':
        _CANCELLED_WHILE_HELD % 'CREATE',
    'StackCancelTest.test_cancel_update_without_rollback':
        _CANCELLED_WHILE_HELD % 'UPDATE',
}

PASSED, FAILED, SKIPPED, EXPECTED = 'passed', 'failed', 'skipped', 'known'
START_TIMEOUT = 120
RELEASE_POLL = 0.5


class IntegrationError(Exception):
    pass


# ---------------------------------------------------------------------------
# Pure logic: outcomes, tables, the verdict
# ---------------------------------------------------------------------------

def short_id(test_id):
    """'heat_integrationtests.functional.test_x.Class.test_y(s)' -> ids."""
    name = test_id
    if name.startswith(PACKAGE + '.'):
        name = name[len(PACKAGE) + 1:]
    return name


def module_of(test_id):
    return short_id(test_id).split('.')[0]


def class_and_method(test_id):
    """'Class.test_y' of a test id, scenario suffix dropped."""
    parts = short_id(test_id).split('(')[0].split('.')
    return '.'.join(parts[1:3])


def _listed(test_id, listing):
    key = class_and_method(test_id)
    return key in listing or key.split('.')[0] in listing


def reason_for(test_id, way):
    """Why a test's failure is expected in a way, or None."""
    for listing in ((BY_DESIGN,) if way == BREAKPOINTS else ()) + (KNOWN,):
        key = class_and_method(test_id)
        reason = listing.get(key) or listing.get(key.split('.')[0])
        if reason:
            return reason
    return None


def outcome(status, test_id, known=None):
    """Our word for a subunit status, known differences applied."""
    known = KNOWN if known is None else known
    if status == 'skip':
        return SKIPPED
    if status == 'success':
        return PASSED
    if _listed(test_id, known):
        return EXPECTED
    return FAILED


def module_table(results):
    """{module: Counter(outcome)} of {way: {test id: outcome}}."""
    table = collections.defaultdict(collections.Counter)
    for test_id, result in results.items():
        table[module_of(test_id)][result] += 1
    return table


def format_tables(by_way):
    """One table: a row per module, passed/failed/skipped per way."""
    ways = [w for w in WAYS if w in by_way]
    modules = sorted({module_of(t) for r in by_way.values() for t in r})
    tables = {w: module_table(by_way[w]) for w in ways}
    head = '%-34s' % 'module' + ''.join('  %-18s' % w for w in ways)
    sub = '%-34s' % '' + ''.join('  %-18s' % 'pass fail skip knw'
                                 for _ in ways)
    lines = [head, sub, '-' * len(sub)]
    totals = {w: collections.Counter() for w in ways}
    for module in modules:
        cells = []
        for way in ways:
            c = tables[way].get(module, collections.Counter())
            totals[way].update(c)
            cells.append('  %4d %4d %4d %3d  ' % (
                c[PASSED], c[FAILED], c[SKIPPED], c[EXPECTED]))
        lines.append('%-34s' % module + ''.join(cells))
    lines.append('-' * len(sub))
    lines.append('%-34s' % 'total' + ''.join(
        '  %4d %4d %4d %3d  ' % (totals[w][PASSED], totals[w][FAILED],
                                 totals[w][SKIPPED], totals[w][EXPECTED])
        for w in ways))
    return '\n'.join(line.rstrip() for line in lines)


def differences(by_way):
    """Tests whose outcome is not the same in every way that ran them."""
    ways = [w for w in WAYS if w in by_way]
    tests = sorted({t for r in by_way.values() for t in r})
    found = []
    for test_id in tests:
        seen = {w: by_way[w].get(test_id) for w in ways}
        if len(set(seen.values())) > 1:
            found.append((test_id, seen))
    return found


def regressions(by_way):
    """Tests that fail with the plugin or breakpoints and pass stock."""
    stock = by_way.get(STOCK, {})
    bad = []
    for way in JUDGED:
        for test_id, result in sorted(by_way.get(way, {}).items()):
            if result == FAILED and stock.get(test_id) == PASSED:
                bad.append((way, test_id))
    return bad


def skip_list(needs=None):
    """The tests' own ``skip_functional_test_list`` value."""
    return ','.join(sorted(NEEDS if needs is None else needs))


# ---------------------------------------------------------------------------
# The server (child process)
# ---------------------------------------------------------------------------

def _heat_compat():
    """tools/heat_compat.py: its plugin hiding and subunit reading."""
    spec = importlib.util.spec_from_file_location(
        'heat_compat', os.path.join(HERE, 'heat_compat.py'))
    heat_compat = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(heat_compat)
    return heat_compat


def _hide_plugin_entry_point():
    _heat_compat()._hide_plugin_entry_point()


def _details_text(test):
    # Heat's own log lines are in the server's log, not repeated here
    return _heat_compat().details_text(test, skip=("pythonlogging:''",))


def server_main(way, argv):
    """``heat-breakpoint-server`` for one way; says what it runs."""
    from heat_breakpoint.server import cli
    from heat_breakpoint.server import local_heat

    if way == STOCK:
        _hide_plugin_entry_point()
    start = local_heat.LocalHeat.start

    def start_and_tell(self):
        start(self)
        from heat.engine import resources
        from oslo_config import cfg
        plugins = sorted(name for name, _cls in
                         resources.global_env().get_stack_lifecycle_plugins())
        engine_loaded = 'heat_breakpoint.engine.plugin' in sys.modules
        print('heat-integration: way=%s lifecycle_plugins=%s '
              'engine_plugin_imported=%s paste_flavor=%s'
              % (way, ','.join(plugins) or '-', engine_loaded,
                 cfg.CONF.paste_deploy.flavor), flush=True)

    local_heat.LocalHeat.start = start_and_tell
    return cli.main(argv)


def server_proves(way, output):
    """Raise unless the server's own line shows the way it should run."""
    line = next((ln for ln in output.splitlines()
                 if ln.startswith('heat-integration: way=')), None)
    if line is None:
        raise IntegrationError('%s server never said what it runs' % way)
    fields = dict(f.split('=', 1) for f in line.split()[1:])
    ours = 'breakpoint' in fields['lifecycle_plugins'].split(',')
    if way == STOCK:
        ok = (not ours and fields['engine_plugin_imported'] == 'False' and
              fields['paste_flavor'] == 'noauth')
    else:
        ok = (ours and fields['engine_plugin_imported'] == 'True' and
              fields['paste_flavor'] != 'noauth')
    if not ok:
        raise IntegrationError('%s server runs the wrong Heat: %s'
                               % (way, line))
    return line


class Server(fixture.LocalHeatProcess):
    """One local server for one way, in its own state directory."""

    def __init__(self, way, root, config_files=()):
        self.way = way
        self.line = None
        config_files = list(config_files)
        if way == STOCK:
            conf = os.path.join(root, 'stock.conf')
            with open(conf, 'w') as out:
                out.write('[paste_deploy]\nflavor = noauth\n')
            config_files.append(conf)
        super().__init__(
            os.path.join(root, way), config_files=config_files,
            boot=[sys.executable, os.path.abspath(__file__), '--_server',
                  way, '--'], cwd=ROOT)
        self.output = os.path.join(root, '%s-server.out' % way)

    def start(self):
        try:
            super().start(reset=True, timeout=START_TIMEOUT)
        except fixture.ServerStartError as exc:
            raise IntegrationError('%s %s' % (self.way, exc))
        self.line = server_proves(self.way, self.read_output())


# ---------------------------------------------------------------------------
# The tests (child process)
# ---------------------------------------------------------------------------

def _catalog_with_only_heat(url):
    """The tests' Keystone catalog look-up, for a cloud with only Heat."""
    from heat_integrationtests.common import clients
    from keystoneauth1 import exceptions

    def get_endpoint_url(self, service_type, region=None):
        if service_type == 'orchestration':
            return url
        raise exceptions.EndpointNotFound(
            'no %s endpoint: the local server is Heat alone' % service_type)

    clients.KeystoneWrapperClient.get_endpoint_url = get_endpoint_url


def with_every_breakpoint(environment):
    """``environment`` plus a breakpoint on every resource, at any depth.

    The tests pass environments as dicts or as YAML text.
    """
    if isinstance(environment, str):
        from heatclient.common import environment_format
        environment = environment_format.parse(environment)
    env = dict(environment or {})
    existing = env.get('breakpoints') or []
    if not isinstance(existing, list):
        existing = [existing]
    env['breakpoints'] = existing + [
        bp for bp in EVERY_RESOURCE if bp not in existing]
    return env


def has_resources(template):
    """False for a template with no resources (None: the stack's own).

    A user does not ask to hold every resource of a template that has
    none; the API refuses it as a breakpoint matching nothing.
    """
    if template is None:
        return True
    if isinstance(template, str):
        from heatclient.common import template_format
        try:
            template = template_format.parse(template)
        except ValueError:
            return True  # Heat says what is wrong with it
    if not isinstance(template, dict):
        return True
    return bool(template.get('resources') or template.get('Resources'))


def _inject_breakpoints():
    """Every create and update the tests send holds at every resource."""
    from heatclient.v1 import stacks

    def wrap(method):
        def call(self, **kwargs):
            if has_resources(kwargs.get('template')):
                kwargs['environment'] = with_every_breakpoint(
                    kwargs.get('environment'))
            return method(self, **kwargs)
        call.__name__ = method.__name__
        return call

    stacks.StackManager.create = wrap(stacks.StackManager.create)
    stacks.StackManager.update = wrap(stacks.StackManager.update)


def load_tests(names, shard=0, shards=1):
    import unittest

    suite = unittest.TestLoader().loadTestsFromNames(
        ['%s.%s' % (PACKAGE, n) for n in names])
    return _heat_compat().shard_of(suite, shard, shards)


def worker_main(args):
    stream_fd = os.dup(1)
    log = open(args.log, 'ab')
    os.dup2(log.fileno(), 1)
    os.dup2(log.fileno(), 2)
    _catalog_with_only_heat(os.environ['HEAT_URL'])
    if args.way == BREAKPOINTS:
        _inject_breakpoints()
    suite = load_tests(args.tests, args.shard, args.shards)
    _heat_compat().run_to_stream(suite, stream_fd)
    return 0


# ---------------------------------------------------------------------------
# The parent: servers, workers, the release loop, the report
# ---------------------------------------------------------------------------

class Releaser(threading.Thread):
    """Releases every hold, as a user with ``stack breakpoint continue``."""

    def __init__(self, endpoint):
        super().__init__(daemon=True)
        from heatclient import client as heat_client
        from keystoneauth1 import noauth
        from keystoneauth1 import session

        from heatclient_ext.v1 import manager
        sess = session.Session(auth=noauth.NoAuth())
        client = heat_client.Client('1', session=sess,
                                    endpoint_override=endpoint)
        self.client = client
        self.manager = manager.BreakpointManager(client)
        self.released = 0
        self.stacks = set()
        self.errors = collections.Counter()
        self._done = threading.Event()

    def run(self):
        while not self._done.wait(RELEASE_POLL):
            try:
                running = [s for s in self.client.stacks.list()
                           if s.stack_status.endswith('_IN_PROGRESS')]
            except Exception as exc:
                self.errors[type(exc).__name__] += 1
                continue
            for stack in running:
                try:
                    rows = self.manager.continue_(stack.id)
                except Exception as exc:
                    # "Nothing is held": the operation is between holds.
                    self.errors[type(exc).__name__] += 1
                    continue
                self.released += len(rows)
                self.stacks.add(stack.id)

    def stop(self):
        self._done.set()
        self.join(10)


def _reason_line(test):
    """The last line of a failure's traceback: what went wrong."""
    text = _details_text(test)
    for line in reversed(text.splitlines()):
        if line.strip() and not line.startswith('---'):
            return line.strip()[:300]
    return test['status']


class WayRun(object):
    """One way: its server, its workers, its results."""

    def __init__(self, way, args, root):
        self.way = way
        self.args = args
        self.root = root
        self.server = Server(way, root)
        self.results = {}
        self.raw = {}
        self.problems = []
        self.releaser = None
        self.elapsed = 0.0
        self._lock = threading.Lock()

    def on_test(self, test):
        with self._lock:
            known = dict(KNOWN, **(BY_DESIGN if self.way == BREAKPOINTS
                                   else {}))
            result = outcome(test['status'], test['id'], known)
            self.results[test['id']] = result
            self.raw[test['id']] = test
            if result == FAILED or self.args.verbose:
                print('[%s] %s: %s' % (self.way, result.upper(),
                                       short_id(test['id'])), flush=True)

    def run(self):
        started = time.monotonic()
        try:
            self.server.start()
        except IntegrationError as exc:
            self.problems.append(str(exc))
            return
        print('[%s] %s' % (self.way, self.server.line), flush=True)
        if self.way == BREAKPOINTS:
            self.releaser = Releaser(self.server.endpoint)
            self.releaser.start()
        try:
            self._run_workers()
        finally:
            try:
                if self.releaser is not None:
                    self.releaser.stop()
            finally:
                self.server.stop()
                self.elapsed = time.monotonic() - started

    def _run_workers(self):
        heat_compat = _heat_compat()
        env = heat_compat.path_first(STAND_IN)
        env.update({
            'HEAT_URL': self.server.endpoint,
            'OS_NO_CLIENT_AUTH': 'True',
            'HEAT_PLUGIN_BUILD_TIMEOUT': str(self.args.build_timeout),
            'HEAT_PLUGIN_SKIP_FUNCTIONAL_TEST_LIST': skip_list(),
        })
        workers = heat_compat.start_workers(
            os.path.abspath(__file__), ['--way', self.way], self.args.tests,
            self.args.concurrency,
            lambda shard: os.path.join(self.root, '%s-worker-%d.log'
                                       % (self.way, shard)),
            env, self.root, self.on_test)
        for shard, proc, reader, log in workers:
            rc = proc.wait()
            reader.join()
            if rc != 0:
                self.problems.append('%s worker %d exited with %d (log: %s)'
                                     % (self.way, shard, rc, log))


def report(runs, args):
    by_way = {r.way: r.results for r in runs}
    print()
    print(format_tables(by_way))
    for r in runs:
        extra = ''
        if r.releaser is not None:
            extra = ', %d holds released by continue in %d stacks' % (
                r.releaser.released, len(r.releaser.stacks))
        print('%s: %d tests in %.0fs%s' % (r.way, len(r.results),
                                           r.elapsed, extra))
    diffs = differences(by_way)
    if diffs:
        print('\nDifferences between the ways:')
    raw = {r.way: r.raw for r in runs}
    for test_id, seen in diffs:
        print('  %s: %s' % (short_id(test_id), ', '.join(
            '%s=%s' % (w, seen[w] or 'not run') for w in WAYS if w in seen)))
        for way, result in seen.items():
            if result == FAILED:
                print('    %s: %s' % (way, _reason_line(raw[way][test_id])))
    known = sorted({(t, r.way) for r in runs
                    for t, res in r.results.items() if res == EXPECTED})
    if known:
        print('\nExpected failures (known differences, by design):')
        for test_id, way in known:
            print('  [%s] %s: %s' % (way, short_id(test_id),
                                     reason_for(test_id, way)))
    skipped = sorted({t for r in runs for t, res in r.results.items()
                      if res == SKIPPED})
    if skipped:
        print('\nSkipped:')
        for test_id in skipped:
            key = class_and_method(test_id)
            why = NEEDS.get(key) or NEEDS.get(key.split('.')[0])
            print('  %s: %s' % (short_id(test_id),
                                'needs ' + why if why else 'skipped by '
                                'the test itself'))
    bad = regressions(by_way)
    failed = [(r.way, t) for r in runs for t, res in r.results.items()
              if res == FAILED]
    for way, test_id in sorted(failed):
        if args.details or (way, test_id) in bad:
            print('=' * 70)
            print('%s [%s]' % (short_id(test_id), way))
            print('-' * 70)
            print(_details_text(raw[way][test_id]))
    problems = [p for r in runs for p in r.problems]
    if not any(r.results for r in runs):
        problems.append('no test ran')
    for p in problems:
        print('heat-integration: ERROR: %s' % p)
    for way, test_id in bad:
        print('heat-integration: REGRESSION [%s] %s (passes stock)'
              % (way, short_id(test_id)))
    counts = collections.Counter()
    for r in runs:
        counts.update(r.results.values())
    print('%d passed, %d failed, %d skipped, %d known differences; '
          '%d fail with the plugin or breakpoints and pass stock'
          % (counts[PASSED], counts[FAILED], counts[SKIPPED],
             counts[EXPECTED], len(bad)), flush=True)
    if args.results:
        with open(args.results, 'w') as out:
            json.dump(by_way, out, indent=1, sort_keys=True)
    return 1 if (bad or problems) else 0


def run(args):
    root = tempfile.mkdtemp(prefix='heat-integration-')
    keep = args.keep_tmp or bool(os.environ.get('HEAT_INTEGRATION_KEEP'))
    try:
        print('heat-integration: ways %s; tests: %s' % (
            ', '.join(args.ways), ' '.join(args.tests)), flush=True)
        runs = [WayRun(way, args, root) for way in args.ways]
        threads = [threading.Thread(target=r.run) for r in runs]
        if args.sequential:
            for t in threads:
                t.start()
                t.join()
        else:
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        status = report(runs, args)
        # A failed run keeps its servers' logs and databases.
        keep = keep or bool(status)
        return status
    finally:
        if keep:
            print('heat-integration: logs in %s' % root)
        else:
            shutil.rmtree(root, ignore_errors=True)


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Run Heat's own integration tests against the local "
                    "server: with the plugin, stock, and with breakpoints "
                    "everywhere (see the module docstring).")
    p.add_argument('tests', nargs='*', metavar='test',
                   help='modules, classes or tests under %s (default: '
                        'every module that needs only Heat)' % PACKAGE)
    p.add_argument('--subset', action='store_true',
                   help="CI's representative subset")
    p.add_argument('--ways', default=','.join(WAYS),
                   help='comma-separated, of %s (default: all)'
                        % ', '.join(WAYS))
    p.add_argument('-j', '--concurrency', type=int, default=2,
                   help='test processes per way (default: 2)')
    p.add_argument('--build-timeout', type=int, default=240,
                   help="the tests' build_timeout in seconds (default: "
                        "240)")
    p.add_argument('--sequential', action='store_true',
                   help='one way after the other instead of side by side')
    p.add_argument('--details', action='store_true',
                   help='print the traceback of every failure')
    p.add_argument('--results', metavar='<file>',
                   help='write every outcome as JSON')
    p.add_argument('--keep-tmp', action='store_true',
                   help='keep the servers\' state and the logs')
    p.add_argument('-v', '--verbose', action='store_true')
    p.add_argument('--_server', choices=WAYS, help=argparse.SUPPRESS)
    _heat_compat().add_worker_arguments(p)
    p.add_argument('--way', choices=WAYS, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args._server:
        return args
    args.ways = [w.strip() for w in args.ways.split(',') if w.strip()]
    unknown = [w for w in args.ways if w not in WAYS]
    if unknown or not args.ways:
        p.error('unknown way %s (ways: %s)' % (', '.join(unknown) or "''",
                                               ', '.join(WAYS)))
    if args.subset and args.tests:
        p.error('--subset and explicit tests are mutually exclusive')
    if not args.tests:
        args.tests = list(SUBSET if args.subset else MODULES)
    if args.concurrency < 1:
        p.error('--concurrency must be >= 1')
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ['--_server']:
        return server_main(argv[1], argv[3:])
    args = parse_args(argv)
    if args._worker:
        return worker_main(args)
    try:
        return run(args)
    except IntegrationError as exc:
        print('heat-integration: ERROR: %s' % exc, file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main())
