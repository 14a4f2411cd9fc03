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
"""The distributed tier's fixtures: a real multi-process Heat on loopback.

``deployment`` installs RabbitMQ and MariaDB with apt-get if they are
missing, starts them, and stops every process it started at the end of
the session (see :mod:`tests.distributed.harness`). ``cluster`` is
heat-api plus two heat-engines on them, with the plugin's default
options. Set ``HEAT_DISTRIBUTED_KEEP=1`` to keep the directory with the
configuration and every log; it is kept anyway when a test failed.
"""

import os
import shutil
import time

import pytest

from tests.distributed import common
from tests.distributed import harness
from tests.distributed import identity

ENGINES = 2
TIMEOUT_MINS = 1
# Test-only Heat plugins of the Keystone tier's engines.
TEST_PLUGINS = (os.path.join(os.path.dirname(__file__), 'heat_plugins'),
                os.path.join(os.path.dirname(os.path.dirname(__file__)),
                             'functional', 'heat_plugins'))
#: The resource whose releases the Keystone tier's engines cut off.
CUT_GATE = 'cutgate'


@pytest.fixture(scope='session')
def deployment(request):
    summary = request.config._distributed_summary = []
    started = time.monotonic()
    harness.ensure_packages(log=lambda line: summary.append(line))
    dep = harness.Deployment()
    request.config._distributed_deployment = dep
    try:
        if _uses(request, 'keystone_cluster'):
            # Keystone starts while the broker and the database do.
            identity.ensure_installed(log=summary.append)
            dep.start_keystone()
        dep.start_services()
        summary.append('RabbitMQ and MariaDB up %.0f s after the start'
                       % (time.monotonic() - started))
        yield dep
    finally:
        try:
            dep.stop()
        finally:
            if request.session.testsfailed or os.environ.get(
                    'HEAT_DISTRIBUTED_KEEP'):
                summary.append('configuration and logs kept in %s'
                               % dep.base_dir)
            else:
                shutil.rmtree(dep.base_dir, ignore_errors=True)
            summary.append('%.0f s from the install check to the last '
                           'process stopped (stopping: %.0f s)' % (
                               time.monotonic() - started,
                               getattr(dep, 'stop_seconds', 0)))


@pytest.fixture(autouse=True)
def _give_up_on_dead_checks(request):
    """Waits of a test fail at once when an engine's resource check dies.

    Such a stack never goes on: without this each wait would run out its
    full timeout.
    """
    dep = getattr(request.config, '_distributed_deployment', None)
    if dep is None:
        yield
        return
    marks = [(clu, clu.log_mark()) for clu in dep.clusters]

    def failures():
        found = []
        for clu, mark in marks:
            found += clu.failures_since(mark)
        return found
    common.abort_check = failures
    try:
        yield
    finally:
        common.abort_check = None


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    lines = getattr(config, '_distributed_summary', None)
    if lines:
        terminalreporter.section('distributed tier')
        for line in lines:
            terminalreporter.write_line(line)


def _start(request, dep, name, **kwargs):
    started = time.monotonic()
    cluster = dep.add_cluster(name, **kwargs)
    cluster.start()
    request.config._distributed_summary.append(
        'deployment %r (db_sync, %d engines, heat-api) up in %.0f s'
        % (name, len(cluster.engines), time.monotonic() - started))
    return cluster


@pytest.fixture(scope='session')
def cluster(request, deployment):
    """heat-api and two heat-engines, [breakpoint] options as shipped."""
    return _start(request, deployment, 'heat', engines=ENGINES)


def _uses(request, fixture):
    return any(fixture in getattr(item, 'fixturenames', ())
               for item in request.session.items)


@pytest.fixture(scope='session')
def keystone(request, deployment):
    """The real Keystone (:mod:`identity`), populated."""
    started = time.monotonic()
    ks = deployment.keystone_ready()
    request.config._distributed_summary.append(
        'Keystone %s (keystone-manage x4, gunicorn, users and roles) up '
        'in %.0f s, of which %.0f s spent waiting for it after the broker '
        'and the database' % (_version('keystone'),
                              deployment.keystone_seconds,
                              time.monotonic() - started))
    return ks


def _version(name):
    from importlib import metadata
    return metadata.version(name)


@pytest.fixture(scope='session')
def keystone_cluster(request, deployment, keystone):
    """heat-api and two heat-engines behind the real Keystone.

    Configured as a cloud configures Heat: keystonemiddleware's
    ``authtoken`` in the pipeline with our filter, trusts for deferred
    work, a stack user domain, secure RBAC
    (:func:`heat_breakpoint.server.config.keystone_options`). Its own
    database and RabbitMQ virtual host.
    """
    cluster = deployment.add_cluster(
        'keystone', engines=ENGINES, vhost='keystone', keystone=keystone,
        # Test::WhoAmI, who the checks that create it run as; and the
        # releases of CUT_GATE cut off after their claim (cut_release).
        options={'DEFAULT': {'plugin_dirs': ','.join(TEST_PLUGINS)}},
        engine_env={'CUT_RELEASE': 'fail:%s' % CUT_GATE,
                    'CUT_RELEASE_STUCK_SECONDS': '5'})
    keystone.register_heat(cluster.url)
    started = time.monotonic()
    cluster.start()
    request.config._distributed_summary.append(
        'deployment %r (db_sync, %d engines, heat-api, authtoken) up in '
        '%.0f s' % (cluster.name, len(cluster.engines),
                    time.monotonic() - started))
    return cluster


@pytest.fixture(scope='session')
def counts_cluster(request, deployment):
    """A second deployment: time held at a breakpoint counts.

    Its own RabbitMQ virtual host and database, two engines of its own,
    ``[breakpoint] pause_counts_against_timeout = true``.
    """
    return _start(request, deployment, 'counts', engines=ENGINES,
                  vhost='counts',
                  breakpoint_options={'pause_counts_against_timeout': True})


@pytest.fixture(scope='session')
def timeout_stacks(request):
    """Stacks with ``timeout_mins=1``, held at a breakpoint from the start.

    Made when the session starts (see ``_start_timeout_stacks_early``) so
    that their minute of waiting overlaps the other tests:

    * ``default``: on ``cluster`` (held time does not count);
    * ``counts``: on ``counts_cluster`` (held time counts);
    * ``counts-killed``: on ``counts_cluster`` too, and the engine that
      parked it is killed with SIGKILL (and replaced) as soon as it holds.

    Returns ``({key: (cluster, stack, names)}, monotonic time when all
    were held, (killed engine, its replacement))``, or the exception that
    prevented it: only the timeout tests report it, not every test.
    """
    try:
        cluster = request.getfixturevalue('cluster')
        counts_cluster = request.getfixturevalue('counts_cluster')
        marks = [(clu, clu.log_mark()) for clu in (cluster, counts_cluster)]
        common.abort_check = lambda: [
            line for clu, mark in marks for line in clu.failures_since(mark)]
        stacks = {}
        for key, clu in (('default', cluster), ('counts', counts_cluster),
                         ('counts-killed', counts_cluster)):
            t = common.tag()
            names = ['%s_%s' % (letter, t) for letter in 'abcd']
            stack = 'timeout-%s-%s' % (key, t)
            clu.client().stacks.create(
                stack_name=stack, template=common.chain(names),
                environment=common.breakpoint_env(names[1]),
                timeout_mins=TIMEOUT_MINS)
            stacks[key] = (clu, stack, names)
        for clu, stack, names in stacks.values():
            common.wait_held_set(clu.client(), stack, [names[1]])
        held_at = time.monotonic()
        clu, stack, names = stacks['counts-killed']
        holder = common.engine_of(clu, common.hold_line(names[1]))
        clu.kill_engine(holder)
        replacement = clu.start_engine()
        return stacks, held_at, (holder, replacement)
    except Exception as exc:  # noqa: reported by the tests that use it
        return exc
    finally:
        common.abort_check = None


@pytest.fixture(scope='session', autouse=True)
def _start_timeout_stacks_early(request):
    if any('timeout_stacks' in getattr(item, 'fixturenames', ())
           for item in request.session.items):
        request.getfixturevalue('timeout_stacks')


def pytest_report_header(config):
    return 'distributed tier: RabbitMQ + MariaDB + heat-api + %d ' \
           'heat-engines on 127.0.0.1' % ENGINES
