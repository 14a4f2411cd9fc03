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
"""Faults: the broker, the database and heat-api restarted under holds.

Restarting RabbitMQ or MariaDB disturbs every Heat of a deployment, so
these tests run on a deployment of their own (its own broker, database,
heat-api and two heat-engines), started for this module.

* RabbitMQ stopped and started again (same port, same data) while holds
  are parked: once oslo.messaging has reconnected, ``openstack stack
  breakpoint set|clear|step|continue`` drive the stacks to the end, each
  resource created once. How long oslo.messaging took to reconnect
  every connection, and the first command to answer, is printed.
* MariaDB stopped and started again while a stack is parked and another
  one's release is being processed (its released resource is still
  creating): the commands given during the outage fail in bounded time
  with a one-line error (exit 1, no traceback; heat-api's fault carries
  none either). Ours say that heat-engine cannot reach its database (the
  breakpoints view answers 503), where Heat's own (``stack show``,
  ``stack hook clear``) say ``Internal Error`` (a 500). Nothing of the
  parked stack changes, and after the restart both stacks end with each
  hold released once and each resource created once.
* heat-api stopped and started again: while it is down each command
  (ours and Heat's) fails within ``AT_ONCE`` seconds, exit 1, with one
  line on stderr, the connection error (``Unable to establish connection
  to`` heat-api's URL, ``Connection refused``); the held operation is as
  it was, and the commands drive it to the end after.

The commands run the real ``openstack`` shell with a deadline, so that
a hang fails the test instead of stalling it.
"""

import os
import re
import shutil
import threading
import time

import pytest
import requests

from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons
from tests.distributed import common
from tests.distributed import harness

ENGINES = 2
# Longest a command may take to fail while a service is down.
FAIL_WITHIN = 30
# Longest a command may take to fail while heat-api is down: the
# connection is refused at once, the rest is the shell's own work.
AT_ONCE = 5
# Longest the commands may take to work again after a restart.
RECOVER_WITHIN = 120
# How long the broker and the database stay down.
OUTAGE = 3
# How long the resource released just before the database goes down
# takes to create: longer than the outage and the restart together.
RELEASE_SECONDS = 30
# What the breakpoints view answers while heat-engine has no database.
DATABASE_DOWN = ('heat-engine cannot reach its database: try again when '
                 'the database is back')


def _summary(request):
    lines = getattr(request.config, '_distributed_summary', None)
    if lines is None:
        lines = request.config._distributed_summary = []
    return lines


@pytest.fixture(scope='module')
def restarts(request):
    """A deployment of its own: RabbitMQ, MariaDB, heat-api, 2 engines."""
    summary = _summary(request)
    started = time.monotonic()
    harness.ensure_packages(log=summary.append)
    dep = harness.Deployment()
    failed_before = request.session.testsfailed
    try:
        dep.start_services()
        cluster = dep.add_cluster('restarts', engines=ENGINES)
        cluster.start()
        summary.append('deployment %r (own RabbitMQ and MariaDB, %d '
                       'engines) up in %.0f s' % (
                           cluster.name, ENGINES,
                           time.monotonic() - started))
        yield cluster
    finally:
        try:
            dep.stop()
        finally:
            if request.session.testsfailed > failed_before or \
                    os.environ.get('HEAT_DISTRIBUTED_KEEP'):
                summary.append('restarts: configuration and logs kept in %s'
                               % dep.base_dir)
            else:
                shutil.rmtree(dep.base_dir, ignore_errors=True)


# -- helpers ------------------------------------------------------------------

def _stack(hc, prefix, slow=None):
    """A chain a-b-c-d-e held at b; ``slow``: a resource creating slowly."""
    t = common.tag()
    names = ['%s_%s' % (letter, t) for letter in 'abcde']
    template = common.chain(names)
    if slow is not None:
        template['resources'][names[slow]]['properties'][
            'action_wait_secs'] = {'create': RELEASE_SECONDS}
    stack = '%s-%s' % (prefix, t)
    hc.stacks.create(stack_name=stack, template=template,
                     environment=common.breakpoint_env(names[1]))
    return stack, names


def _explain(cluster):
    return lambda: '\nengine errors:\n%s' % cluster.errors()


def _cli(cluster, *argv, within=FAIL_WITHIN):
    """The ``openstack`` shell: (exit code, stdout, stderr, seconds).

    Run in a thread, so that a command that does not end ``within``
    seconds (a hang) fails the test instead of stalling it.
    """
    result = []
    started = time.monotonic()
    runner = threading.Thread(target=lambda: result.append(
        common.openstack(cluster, *argv)), daemon=True)
    runner.start()
    runner.join(within)
    if runner.is_alive():
        pytest.fail('openstack %s still running after %ss (a hang)'
                    % (' '.join(argv), within))
    code, out, err = result[0]
    return code, out, err, time.monotonic() - started


def _fails_clearly(cluster, *argv):
    """The command fails in bounded time with a one-line error.

    Exit code 1, no traceback, exactly one line on stderr (returned, with
    the seconds the command took).
    """
    code, out, err, seconds = _cli(cluster, *argv)
    assert code == 1, (argv, code, out, err)
    assert 'Traceback' not in err, (argv, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, (argv, out, err)
    return lines[0], seconds


def _until_it_answers(cluster, stack):
    """Retry ``breakpoint list`` until it answers; the seconds it took.

    A read-only command: retrying it cannot release anything twice.
    """
    started = time.monotonic()
    tries = []
    while True:
        code, out, err, _s = _cli(cluster, 'stack', 'breakpoint', 'list',
                                  stack, within=RECOVER_WITHIN)
        if code == 0:
            return time.monotonic() - started, tries
        tries.append((err.strip().splitlines() or [''])[-1])
        assert time.monotonic() - started < RECOVER_WITHIN, tries
        time.sleep(1)


# What oslo.messaging logs for each of its connections (by id) when the
# broker goes away and when that connection is back (consumers declared
# again).
_AMQP_DOWN = re.compile(r'\[([0-9a-f-]{36})\] AMQP server\b.* (?:is '
                        r'unreachable|closed the connection)')
_AMQP_UP = re.compile(r'\[([0-9a-f-]{36})\] Reconnected to AMQP server')


def _heat_logs(cluster):
    return [cluster.engine_log(name) for name in cluster.engines] + [
        os.path.join(cluster.dir, 'api.log')]


def _log_sizes(paths):
    return {path: os.path.getsize(path) if os.path.exists(path) else 0
            for path in paths}


def _amqp_connections(sizes):
    """(ids that lost the broker, ids reconnected) since ``sizes``."""
    down, up = set(), set()
    for path, offset in sizes.items():
        with open(path, 'rb') as log:
            log.seek(offset)
            text = log.read().decode('utf-8', 'replace')
        down.update(_AMQP_DOWN.findall(text))
        up.update(_AMQP_UP.findall(text))
    return down, up


def _hold_events(hc, stack, name):
    return [ev for ev in common.events(hc, stack, name)
            if reasons.parse_held(ev.resource_status_reason)]


def _drive(cluster, hc, stack, names):
    """set, clear, step, continue: from the hold at b to the end.

    Each command must work at the first try, each hold happen and end
    once, each resource be created once.
    """
    a, b, c, d, e = names
    explain = _explain(cluster)
    rows = common.osc_json(cluster, 'stack', 'breakpoint', 'set', stack, d)
    assert [r['Result'] for r in rows] == ['armed'], rows
    rows = common.osc_json(cluster, 'stack', 'breakpoint', 'clear', stack, b)
    assert [(r['Resource'], r['Result']) for r in rows] == [
        (b, 'released')], rows
    common.wait_held_set(hc, stack, [d], explain=explain)
    rows = common.osc_json(cluster, 'stack', 'breakpoint', 'step', stack, d)
    assert [(r['Resource'], r['Result']) for r in rows] == [
        (d, 'stepped')], rows
    common.wait_held_set(hc, stack, [e], explain=explain)
    rows = common.osc_json(cluster, 'stack', 'breakpoint', 'continue', stack)
    assert [(r['Resource'], r['Result']) for r in rows] == [
        (e, 'released')], rows
    common.wait_stack(hc, stack, 'CREATE_COMPLETE', explain=explain)
    common.assert_created_once(hc, stack, names)
    for name, how in ((b, 'clear'), (d, 'step'), (e, 'continue')):
        assert len(_hold_events(hc, stack, name)) == 1, (name, explain())
        assert len(common.released_events(hc, stack, name, how)) == 1, (
            name, how, explain())
    for name in (a, c):
        assert not _hold_events(hc, stack, name), name


def _our_errors(cluster):
    """ERROR and CRITICAL lines our package logged in any engine.

    (oslo.messaging logs the traceback of every RPC method that raised,
    ours and Heat's alike, while the database is down: those are not
    counted.)
    """
    return [line for line in cluster.log_lines(' heat_breakpoint')
            if ' ERROR heat_breakpoint' in line or
            ' CRITICAL heat_breakpoint' in line]


def _during_database_outage(cluster, stack, stack_id, names):
    """Our commands and Heat's, and what heat-api answers, failing.

    Returns ``({command: (its last line on stderr, seconds)},
    {request: (status, fault type, fault message)})``.
    """
    b = names[1]
    seen = {}
    for argv in (('stack', 'breakpoint', 'list', stack),
                 ('stack', 'breakpoint', 'step', stack, b),
                 ('stack', 'breakpoint', 'continue', stack),
                 ('stack', 'breakpoint', 'set', stack, names[3]),
                 ('stack', 'breakpoint', 'clear', stack, b),
                 # Stock commands, for comparison.
                 ('stack', 'show', stack),
                 ('stack', 'hook', 'clear', stack, b)):
        seen[' '.join(argv[:argv.index(stack)])] = _fails_clearly(
            cluster, *argv)
    # Ours, Heat's, and a raw release signal.
    api = {}
    for key, method, path, body in (
            ('view', 'get', '/stacks/%s/breakpoints' % stack, None),
            ('stack', 'get', '/stacks/%s/%s' % (stack, stack_id), None),
            ('signal', 'post', '/stacks/%s/%s/resources/%s/signal' % (
                stack, stack_id, b), {
                    'unset_hook': 'pre-create',
                    protocol.SIGNAL_KEY: protocol.RELEASE_CONTINUE})):
        answer = getattr(requests, method)(
            cluster.endpoint() + path, json=body, timeout=FAIL_WITHIN)
        fault = answer.json()
        assert answer.status_code >= 400, (key, answer.text)
        assert fault['error'].get('traceback') is None, (key, answer.text)
        api[key] = (answer.status_code, fault['error'].get('type'),
                    (fault['error'].get('message') or '')[:100])
    return seen, api


# -- the tests ----------------------------------------------------------------

def test_rabbitmq_restart_while_holds_are_parked(restarts):
    cluster = restarts
    hc = cluster.client()
    stacks = [_stack(hc, 'rmq') for _ in range(2)]
    for stack, names in stacks:
        common.wait_held_set(hc, stack, [names[1]],
                             explain=_explain(cluster))

    sizes = _log_sizes(_heat_logs(cluster))
    started = time.monotonic()
    cluster.rabbit.stop_server()
    stopped = time.monotonic() - started
    time.sleep(OUTAGE)
    started = time.monotonic()
    cluster.rabbit.start_server()
    up = time.monotonic() - started
    # Every connection of heat-api and the engines that lost the broker
    # is back: a cast sent before its consumer declared its queue again
    # would be dropped by the broker, in stock Heat as with breakpoints.
    back = time.monotonic()

    def reconnected():
        down, again = _amqp_connections(sizes)
        return down and down <= again and down
    lost = common.wait_for(reconnected, RECOVER_WITHIN,
                           what='every AMQP connection reconnected')
    reconnect = time.monotonic() - back
    answered, tries = _until_it_answers(cluster, stacks[0][0])

    for stack, names in stacks:
        assert set(common.held_resources(hc, stack)) == {names[1]}
        _drive(cluster, hc, stack, names)
    assert not _our_errors(cluster), _our_errors(cluster)
    print('\nRabbitMQ stopped in %.1f s, down %d s, up again in %.1f s; '
          'its %d connections from heat-api and the engines reconnected '
          '%.1f s after; "breakpoint list" answered %.1f s after that '
          '(failed tries: %r)' % (stopped, OUTAGE, up, len(lost), reconnect,
                                  answered, tries))


def test_mariadb_restart_while_parked_and_releasing(restarts):
    cluster = restarts
    hc = cluster.client()
    parked, p_names = _stack(hc, 'db-parked')
    releasing, r_names = _stack(hc, 'db-releasing', slow=1)
    for stack, names in ((parked, p_names), (releasing, r_names)):
        common.wait_held_set(hc, stack, [names[1]],
                             explain=_explain(cluster))
    parked_id = hc.stacks.get(parked).id
    before = len(common.events(hc, parked))

    # The release of b: it creates for RELEASE_SECONDS, the database goes
    # down and comes back meanwhile.
    rows = common.osc_json(cluster, 'stack', 'breakpoint', 'continue',
                           releasing)
    assert [r['Resource'] for r in rows] == [r_names[1]], rows
    # Past the resource's first write (TestResource stores its value as
    # its create starts, then waits): the database goes down while the
    # release's create is waiting, not in that write.
    common.wait_for(lambda: cluster.engines_logging(
        '%s wait_secs:%d, action:create' % (r_names[1], RELEASE_SECONDS)),
        30, what='the released %s creating' % r_names[1])
    released_at = time.monotonic()

    started = time.monotonic()
    cluster.mariadb.stop()
    stopped = time.monotonic() - started
    try:
        seen, api = _during_database_outage(cluster, parked, parked_id,
                                            p_names)
        time.sleep(max(0, OUTAGE - (time.monotonic() - started)))
    finally:
        started = time.monotonic()
        cluster.mariadb.start_server()
        up = time.monotonic() - started
    print('\nMariaDB stopped in %.1f s, up again in %.1f s; during the '
          'outage:\n%s\nheat-api:\n%s' % (
              stopped, up,
              '\n'.join('  %s (%.1f s): %s' % (cmd, s, line)
                        for cmd, (line, s) in seen.items()),
              '\n'.join('  %s: %r' % item for item in api.items())))
    # Heat answers its own requests with an anonymous 500 ("Internal
    # Error"); the breakpoints view says what is wrong.
    assert api['view'] == (503, 'DBConnectionError', DATABASE_DOWN), api
    assert api['stack'][0] == 500, api
    for cmd in ('list', 'step', 'continue', 'set', 'clear'):
        line = seen['stack breakpoint ' + cmd][0]
        assert DATABASE_DOWN in line, (cmd, seen)

    answered, tries = _until_it_answers(cluster, parked)
    assert time.monotonic() - released_at < RELEASE_SECONDS, (
        'the outage outlasted the release: make RELEASE_SECONDS longer')

    # Nothing of the parked stack changed.
    assert common.stack_status(hc, parked)[0] == 'CREATE_IN_PROGRESS'
    assert set(common.held_resources(hc, parked)) == {p_names[1]}
    assert len(common.events(hc, parked)) == before
    _drive(cluster, hc, parked, p_names)

    # The release being processed went on, once.
    common.wait_stack(hc, releasing, 'CREATE_COMPLETE',
                      timeout=RELEASE_SECONDS + 60,
                      explain=_explain(cluster))
    common.assert_created_once(hc, releasing, r_names)
    assert len(_hold_events(hc, releasing, r_names[1])) == 1
    assert len(common.released_events(hc, releasing, r_names[1],
                                      'continue')) == 1
    assert not _our_errors(cluster), _our_errors(cluster)
    print('"breakpoint list" answered %.1f s after MariaDB was back '
          '(failed tries: %r)' % (answered, tries))


def test_heat_api_restart(restarts):
    cluster = restarts
    hc = cluster.client()
    stack, names = _stack(hc, 'api')
    common.wait_held_set(hc, stack, [names[1]], explain=_explain(cluster))
    listed = common.osc_json(cluster, 'stack', 'breakpoint', 'list', stack)
    events = len(common.events(hc, stack))

    cluster.stop_api()
    seen = {}
    for argv in (('stack', 'breakpoint', 'list', stack),
                 ('stack', 'breakpoint', 'step', stack, names[1]),
                 ('stack', 'breakpoint', 'continue', stack),
                 ('stack', 'show', stack),
                 ('stack', 'hook', 'clear', stack, names[1])):
        seen[' '.join(argv[:argv.index(stack)])] = _fails_clearly(
            cluster, *argv)
    refused = 'Unable to establish connection to %s/' % cluster.url
    for cmd, (line, seconds) in seen.items():
        assert line.startswith(refused), (cmd, line, seen)
        assert 'Connection refused' in line, (cmd, line, seen)
        assert seconds <= AT_ONCE, (
            '%s took %.1f s to fail, not at once (%d s)' % (
                cmd, seconds, AT_ONCE), seen)
    started = time.monotonic()
    cluster.start_api()
    up = time.monotonic() - started

    assert common.osc_json(cluster, 'stack', 'breakpoint', 'list',
                           stack) == listed
    assert len(common.events(hc, stack)) == events
    assert common.stack_status(hc, stack)[0] == 'CREATE_IN_PROGRESS'
    _drive(cluster, hc, stack, names)
    print('\nheat-api up again in %.1f s; while it was down:\n%s' % (
        up, '\n'.join('  %s (%.1f s): %s' % (cmd, s, line)
                      for cmd, (line, s) in seen.items())))
