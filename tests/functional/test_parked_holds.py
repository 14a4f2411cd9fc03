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
"""Parked holds (issue 7) on the real local Heat (convergence engine).

A breakpoint costs no engine thread, survives an engine restart, and (by
default) does not eat the stack timeout. Every test starts servers of its
own, because each needs its own configuration or kills its server.

Heat's convergence engine sleeps one second after triggering each leaf
resource, so the templates here have a single leaf: a root and N
dependents, held with the wildcard breakpoint ``d*``.
"""

import contextlib
import json
import os
import re
import signal
import tempfile
import time

import pytest
import yaml

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import reasons
from heat_breakpoint.model import registry
from tests.functional import conftest
from tests.functional import test_engine
from tests.functional import utils

TEMPLATES = os.path.join(os.path.dirname(__file__), 'templates')

POOL_SIZE = 8
HELD_STACKS = 10
DEPENDENTS = 10
NATIVE_PAUSED = reasons.NATIVE_PAUSED % {'action': 'CREATE',
                                         'hook': 'pre-create'}
ENGINE_DOWN = 'Engine went down'


# -- servers -------------------------------------------------------------

def write_conf(text):
    fd, path = tempfile.mkstemp(prefix='heat-breakpoint-parked-',
                                suffix='.conf')
    with os.fdopen(fd, 'w') as out:
        out.write(text)
    return path


@contextlib.contextmanager
def local_heat(label, conf_text=None, kill=False):
    """A server of our own on a fresh state dir, stopped at the end."""
    state = tempfile.mkdtemp(prefix='heat-breakpoint-parked-%s-' % label)
    confs = [write_conf(conf_text)] if conf_text else []
    server = conftest.LocalHeatProcess(state, config_files=confs)
    server.start(reset=True)
    try:
        yield server
    finally:
        # A server with threads pinned in stock hooks would make SIGTERM
        # wait out its grace period: such tests ask for kill -9.
        server.stop(signal.SIGKILL if kill else None)
        for conf in confs:
            os.unlink(conf)
        server.remove()


def log_lines(server, *needles, levels=('ERROR', 'CRITICAL'), last=40):
    """Lines of the server log worth showing when an assertion fails."""
    try:
        with open(server.log_file, errors='replace') as log:
            lines = log.read().splitlines()
    except OSError as exc:
        return ['(no log: %s)' % exc]
    found = [line for line in lines
             if any(' %s ' % level in line for level in levels) or
             any(n in line for n in needles if n)]
    return found[-last:]


def explain(server, *needles):
    return '\nlog %s:\n%s' % (server.log_file,
                              '\n'.join(log_lines(server, *needles)))


# -- templates and stacks -------------------------------------------------

def template(name):
    with open(os.path.join(TEMPLATES, name)) as f:
        return yaml.safe_load(f)


def fan_out(width, prefix='d'):
    """A root and ``width`` dependents: one leaf for Heat to trigger."""
    resources = {'root': {'type': 'OS::Heat::TestResource',
                          'properties': {'value': 'root'}}}
    for i in range(width):
        resources['%s%02d' % (prefix, i)] = {
            'type': 'OS::Heat::TestResource',
            'properties': {'value': {'list_join': [
                '-', [{'get_attr': ['root', 'output']}, str(i)]]}}}
    return {'heat_template_version': '2018-08-31', 'resources': resources}


def breakpoint_env(*names):
    return registry.apply_to_environment(
        {}, breakpoints.parse_names(names, None))


def held_resources(hc, stack):
    """{name: resource} of the resources held at a breakpoint."""
    return {r.resource_name: r for r in hc.resources.list(stack)
            if r.resource_status.endswith('_IN_PROGRESS') and
            reasons.parse_held(r.resource_status_reason)}


wait_held = test_engine.wait_held


def timed_create(hc, name, tmpl, timeout=120):
    start = time.monotonic()
    hc.stacks.create(stack_name=name, template=tmpl)
    utils.wait_stack(hc, name, 'CREATE_COMPLETE', timeout=timeout)
    return time.monotonic() - start


def create_events(hc, stack):
    """{resource name: [events]} of one stack, oldest first."""
    found = {}
    for event in hc.events.list(stack, sort_dir='asc'):
        found.setdefault(event.resource_name, []).append(event)
    return found


def complete_events(events, action='CREATE'):
    return [e for e in events if e.resource_status == action + '_COMPLETE']


def breakpoint_continue(server, stack):
    code, out, err = conftest.run_openstack(
        server, 'stack', 'breakpoint', 'continue', stack, '-f', 'json')
    assert code == 0, 'continue %s: %s%s' % (stack, err, explain(server))
    return json.loads(out)


def breakpoint_list(server, stack):
    code, out, err = conftest.run_openstack(
        server, 'stack', 'breakpoint', 'list', stack, '-f', 'json')
    assert code == 0, 'list %s: %s%s' % (stack, err, explain(server))
    return json.loads(out)


def baseline_then_held_stacks(hc):
    """(seconds, names): a fan-out's create alone, then HELD_STACKS more.

    The seconds are the normal time of a stack of that shape on this
    server; the stacks named are created, not waited for, each with a
    breakpoint on its dependents.
    """
    baseline = timed_create(hc, 'control-before', fan_out(DEPENDENTS))
    names = ['held-%02d' % i for i in range(HELD_STACKS)]
    for name in names:
        hc.stacks.create(stack_name=name, template=fan_out(DEPENDENTS),
                         environment=breakpoint_env('d*'))
    return baseline, names


# -- 1. a held resource costs no engine thread ----------------------------

def test_100_parked_holds_do_not_starve_a_pool_of_8():
    pool = '[DEFAULT]\nexecutor_thread_pool_size = %d\n' % POOL_SIZE
    with local_heat('pool8', pool) as server:
        hc = server.client()
        baseline, names = baseline_then_held_stacks(hc)

        def all_held():
            counts = {n: len(held_resources(hc, n)) for n in names}
            return sum(counts.values()) == HELD_STACKS * DEPENDENTS and \
                counts
        try:
            utils.wait_for(all_held, 180, interval=1,
                           what='%d holds' % (HELD_STACKS * DEPENDENTS))
        except utils.Timeout as exc:
            raise AssertionError('%s%s' % (exc, explain(server)))

        roots = {n: hc.resources.get(n, 'root') for n in names}
        assert {r.resource_status for r in roots.values()} == {
            'CREATE_COMPLETE'}
        for name in names:
            held = held_resources(hc, name)
            assert sorted(held) == ['d%02d' % i for i in range(DEPENDENTS)]
            for rsrc in held.values():
                assert reasons.parse_held(rsrc.resource_status_reason) == {
                    'name': 'd*', 'action': 'CREATE', 'hook': 'pre-create'}
                assert rsrc.physical_resource_id in ('', None)
            assert utils.stack_status(hc, name) == 'CREATE_IN_PROGRESS'

        # With 100 holds on 8 threads, a stack without breakpoints still
        # runs in its normal time.
        during = timed_create(hc, 'control-during', fan_out(DEPENDENTS),
                              timeout=max(60, 3 * baseline + 5))
        print('control stack: %.1fs before the holds, %.1fs with 100 held'
              % (baseline, during))
        assert during < 3 * baseline + 5, (baseline, during)
        # ... and nothing held went on meanwhile.
        assert sum(len(held_resources(hc, n)) for n in names) == \
            HELD_STACKS * DEPENDENTS

        for name in names:
            rows = breakpoint_continue(server, name)
            assert len(rows) == DEPENDENTS, rows
        for name in names:
            try:
                utils.wait_stack(hc, name, 'CREATE_COMPLETE', timeout=120)
            except AssertionError as exc:
                raise AssertionError('%s%s' % (exc, explain(server, name)))

        expected = ['root'] + ['d%02d' % i for i in range(DEPENDENTS)]
        for name in names:
            events = create_events(hc, name)
            found = {r.resource_name: r for r in hc.resources.list(name)}
            assert sorted(found) == sorted(expected)
            for rname in expected:
                done = complete_events(events.get(rname, []))
                assert len(done) == 1, (name, rname, [
                    (e.resource_status, e.resource_status_reason)
                    for e in events.get(rname, [])])
                assert not [e for e in events.get(rname, [])
                            if e.resource_status.endswith('FAILED')]
                rsrc = found[rname]
                assert rsrc.resource_status == 'CREATE_COMPLETE'
                assert rsrc.physical_resource_id
                # The physical resource is the one its create made.
                assert rsrc.physical_resource_id == \
                    done[0].physical_resource_id
            assert found['root'].physical_resource_id == \
                roots[name].physical_resource_id
        assert log_lines(server, 'Traceback') == []


def test_stock_hooks_with_plugin_disabled_starve_a_pool_of_8():
    """The contrast: the same load, breakpoints as stock hooks."""
    conf = ('[DEFAULT]\nexecutor_thread_pool_size = %d\n'
            '[breakpoint]\nenabled = false\n' % POOL_SIZE)
    with local_heat('stock', conf, kill=True) as server:
        hc = server.client()
        baseline, names = baseline_then_held_stacks(hc)

        def paused():
            return sum(1 for n in names for e in hc.events.list(n)
                       if e.resource_status_reason == NATIVE_PAUSED)
        utils.wait_for(lambda: paused() >= POOL_SIZE, 60, interval=1,
                       what='%d stock hooks reached' % POOL_SIZE)
        window = 3 * baseline + 5
        start = time.monotonic()
        hc.stacks.create(stack_name='control-during',
                         template=fan_out(DEPENDENTS))
        time.sleep(window)
        # Each stock hook pins an executor thread: exactly a pool's worth
        # of holds, and nothing else runs, not even the control stack.
        assert paused() == POOL_SIZE
        control = hc.stacks.get('control-during')
        print('control stack: %.1fs before; still %s after %.1fs with %d '
              'stock hooks' % (baseline, control.stack_status,
                               time.monotonic() - start, paused()))
        assert control.stack_status == 'CREATE_IN_PROGRESS'
        assert hc.resources.get('control-during', 'root').resource_status \
            == 'INIT_COMPLETE'


# -- 2. a hold survives an engine restart ----------------------------------

@pytest.mark.parametrize('sig', [signal.SIGTERM, signal.SIGKILL],
                         ids=['sigterm', 'kill-9'])
def test_hold_survives_engine_restart(sig):
    with local_heat('restart-%d' % sig) as server:
        hc = server.client()
        hc.stacks.create(stack_name='held', template=template('chain.yaml'),
                         environment=breakpoint_env('B'))
        wait_held(hc, 'held', 'B')
        before = {r.resource_name: r for r in hc.resources.list('held')}
        assert before['A'].resource_status == 'CREATE_COMPLETE'

        code = server.stop(sig)
        if sig == signal.SIGTERM:
            assert code == 0, server.read_output()
            assert 'heat-breakpoint-server: stopped' in server.read_output()
            assert 'still busy' not in server.read_output()
        else:
            assert code == -signal.SIGKILL
        server.start()
        hc = server.client()
        # Heat resets IN_PROGRESS stacks in a thread after start: give it
        # time to (wrongly) do so before looking.
        time.sleep(5)

        stack = hc.stacks.get('held')
        assert stack.stack_status == 'CREATE_IN_PROGRESS', (
            stack.stack_status, stack.stack_status_reason,
            explain(server, ENGINE_DOWN))
        rsrc = hc.resources.get('held', 'B')
        assert rsrc.resource_status == 'CREATE_IN_PROGRESS'
        assert reasons.parse_held(rsrc.resource_status_reason) == {
            'name': 'B', 'action': 'CREATE', 'hook': 'pre-create'}
        assert [row['Resource'] for row in breakpoint_list(server, 'held')
                if row.get('State') == 'held'] == ['B']
        assert not [e for e in hc.events.list('held')
                    if ENGINE_DOWN in (e.resource_status_reason or '')]
        assert log_lines(server, ENGINE_DOWN, levels=()) == []

        rows = breakpoint_continue(server, 'held')
        assert [row['Resource'] for row in rows] == ['B']
        try:
            stack = utils.wait_stack(hc, 'held', 'CREATE_COMPLETE')
        except AssertionError as exc:
            raise AssertionError('%s%s' % (exc, explain(server, 'B')))
        assert [o['output_value'] for o in stack.outputs] == ['one']
        events = create_events(hc, 'held')
        for name in 'ABCD':
            assert len(complete_events(events[name])) == 1, name
        assert hc.resources.get('held', 'A').physical_resource_id == \
            before['A'].physical_resource_id


# -- 3. time held does not count against the stack timeout -----------------

HOLD_FOR = 90
TIMEOUT_MINS = 1


@pytest.fixture(scope='module')
def held_past_timeout():
    """Stacks with ``timeout_mins=1`` held at B for 90 s.

    Two servers, the option unset and the option true, one stack each;
    both wait at the same time.
    """
    with contextlib.ExitStack() as stack:
        servers = {
            'default': stack.enter_context(local_heat('timeout-default')),
            'counts': stack.enter_context(local_heat(
                'timeout-counts',
                '[breakpoint]\npause_counts_against_timeout = true\n')),
        }
        for server in servers.values():
            server.client().stacks.create(
                stack_name='slow', template=template('chain.yaml'),
                environment=breakpoint_env('B'), timeout_mins=TIMEOUT_MINS)
        for server in servers.values():
            wait_held(server.client(), 'slow', 'B')
        held_at = time.monotonic()
        # What each stack reads just after its timeout, while still held.
        time.sleep(TIMEOUT_MINS * 60 + 5)
        seen = {}
        for key, server in servers.items():
            st = server.client().stacks.get('slow')
            seen[key] = (st.stack_status, st.stack_status_reason)
        time.sleep(max(0.0, HOLD_FOR - (time.monotonic() - held_at)))
        yield servers, seen


def test_time_held_does_not_count_against_timeout(held_past_timeout):
    servers, seen = held_past_timeout
    server = servers['default']
    hc = server.client()
    print('at the timeout the stack read %s' % (seen['default'],))
    assert seen['default'][0] == 'CREATE_IN_PROGRESS', seen['default']
    assert reasons.parse_held(
        hc.resources.get('slow', 'B').resource_status_reason)
    breakpoint_continue(server, 'slow')
    try:
        utils.wait_stack(hc, 'slow', 'CREATE_COMPLETE', timeout=60)
    except AssertionError as exc:
        raise AssertionError('%s%s' % (exc, explain(server, 'Timed out')))
    events = create_events(hc, 'slow')
    for name in 'ABCD':
        assert len(complete_events(events[name])) == 1, name


def test_pause_counts_against_timeout_fails_at_the_deadline(
        held_past_timeout):
    """As stock Heat: a hooked stack fails at its timeout, released or not.

    Stock Heat (``[breakpoint] enabled = false``) reads ``CREATE_FAILED``
    ``Timed out`` 60 s after the start of a ``timeout_mins=1`` create held
    at a hook, with no release.
    """
    servers, seen = held_past_timeout
    assert seen['counts'][0] == 'CREATE_FAILED', (
        'still %s (%s) %ds after the start of a %d min create held at a '
        'breakpoint with pause_counts_against_timeout = true' % (
            seen['counts'] + (TIMEOUT_MINS * 60 + 5, TIMEOUT_MINS)))


def test_pause_counts_against_timeout_fails_the_stack(held_past_timeout):
    servers, seen = held_past_timeout
    server = servers['counts']
    hc = server.client()
    print('at the timeout the stack read %s' % (seen['counts'],))
    if hc.stacks.get('slow').stack_status == 'CREATE_IN_PROGRESS':
        code, out, err = conftest.run_openstack(
            server, 'stack', 'breakpoint', 'continue', 'slow')
        print('continue: %s %s %s' % (code, out, err))

    def ended():
        st = hc.stacks.get('slow')
        return not st.stack_status.endswith('IN_PROGRESS') and st
    try:
        stack = utils.wait_for(ended, 60, what='slow ended')
    except utils.Timeout as exc:
        raise AssertionError('%s%s' % (exc, explain(server, 'Timed out')))
    assert stack.stack_status == 'CREATE_FAILED', (
        stack.stack_status, stack.stack_status_reason,
        explain(server, 'Timed out'))
    assert re.search(r'timed? ?out', stack.stack_status_reason, re.I), \
        stack.stack_status_reason
    # Failed cleanly: nothing is left reading held, nothing went on.
    rsrcs = {r.resource_name: r for r in hc.resources.list('slow')}
    assert not [r for r in rsrcs.values()
                if r.resource_status.endswith('IN_PROGRESS')], {
        n: (r.resource_status, r.resource_status_reason)
        for n, r in rsrcs.items()}
    assert rsrcs['C'].resource_status == 'INIT_COMPLETE'
    assert rsrcs['D'].resource_status == 'INIT_COMPLETE'
