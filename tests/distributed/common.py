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
"""Templates, waits, look-ups and the CLIs, for the distributed tests.

Resource names carry a tag unique to the test (``b_3f9a1c``), because an
engine's log line for a hold names the resource, not the stack: that is
how a test tells which heat-engine parked it.
"""

import json
import os
import subprocess
import sys
import time
import uuid

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import reasons
from heat_breakpoint.model import registry
from tests.functional import conftest

BIN = os.path.dirname(sys.executable)


class Timeout(AssertionError):
    pass


def tag():
    return uuid.uuid4().hex[:6]


# Set by conftest.py for each test: returns what makes waiting pointless
# (resource checks that died in an engine since the test started).
abort_check = None
ABORT_EVERY = 2.0


def wait_for(predicate, timeout=60, interval=0.3, what='condition'):
    deadline = time.monotonic() + timeout
    last = None
    next_abort_check = time.monotonic() + ABORT_EVERY
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        if abort_check is not None and time.monotonic() >= next_abort_check:
            failures = abort_check()
            if failures:
                raise AssertionError(
                    'gave up waiting for %s: a resource check died in an '
                    'engine:\n%s' % (what, '\n'.join(failures[-10:])))
            next_abort_check = time.monotonic() + ABORT_EVERY
        time.sleep(interval)
    raise Timeout('timed out after %ss waiting for %s (last: %r)'
                  % (timeout, what, last))


# -- templates ----------------------------------------------------------------

def _test_resource(value):
    return {'type': 'OS::Heat::TestResource', 'properties': {'value': value}}


def chain(names):
    """names[0] <- names[1] <- ...: each needs the one before (one leaf)."""
    resources = {names[0]: _test_resource({'get_param': 'suffix'})}
    for before, name in zip(names, names[1:]):
        resources[name] = _test_resource({'get_attr': [before, 'output']})
    return {'heat_template_version': '2018-08-31',
            'parameters': {'suffix': {'type': 'string', 'default': 'one'}},
            'resources': resources,
            'outputs': {'last': {'value': {'get_attr': [names[-1],
                                                        'output']}}}}


def fan_out(root, dependents):
    """One root (the only leaf) and dependents that each need it."""
    resources = {root: _test_resource('root')}
    for i, name in enumerate(dependents):
        resources[name] = _test_resource({'list_join': [
            '-', [{'get_attr': [root, 'output']}, str(i)]]})
    return {'heat_template_version': '2018-08-31', 'resources': resources}


def breakpoint_env(*names, actions=None):
    """The environment the client sends: native hooks plus our marker."""
    return registry.apply_to_environment(
        {}, breakpoints.parse_names(names, actions))


# -- stacks and resources -----------------------------------------------------

def stack_status(hc, stack):
    st = hc.stacks.get(stack, resolve_outputs=False)
    return st.stack_status, st.stack_status_reason


def wait_stack(hc, stack, status, timeout=120, explain=lambda: ''):
    def reached():
        current = hc.stacks.get(stack, resolve_outputs=False)
        if current.stack_status.endswith('FAILED') and \
                current.stack_status != status:
            raise AssertionError('stack %s: %s (%s)%s' % (
                stack, current.stack_status, current.stack_status_reason,
                explain()))
        return current.stack_status == status and current
    try:
        return wait_for(reached, timeout, what='%s %s' % (stack, status))
    except Timeout as exc:
        raise Timeout('%s%s' % (exc, explain()))


def held_resources(hc, stack):
    """{name: resource} of the resources held at a breakpoint."""
    return {r.resource_name: r for r in hc.resources.list(stack)
            if r.resource_status.endswith('_IN_PROGRESS') and
            reasons.parse_held(r.resource_status_reason)}


def wait_held_set(hc, stack, names, timeout=60, explain=lambda: ''):
    try:
        return wait_for(lambda: set(held_resources(hc, stack)) == set(names)
                        and True, timeout,
                        what='%s held at %s' % (stack, sorted(names)))
    except Timeout as exc:
        raise Timeout('%s%s' % (exc, explain()))


def events(hc, stack, resource=None):
    kwargs = {'resource_name': resource} if resource else {}
    return list(hc.events.list(stack, **kwargs))


def complete_counts(hc, stack, action='CREATE'):
    """{resource name: number of <action>_COMPLETE events}."""
    counts = {}
    for ev in events(hc, stack):
        if ev.resource_name == stack:
            continue
        if ev.resource_status == '%s_COMPLETE' % action:
            counts[ev.resource_name] = counts.get(ev.resource_name, 0) + 1
    return counts


def assert_created_once(hc, stack, names):
    counts = complete_counts(hc, stack)
    assert {name: counts.get(name, 0) for name in names} == {
        name: 1 for name in names}, counts


def released_events(hc, stack, name, how):
    text = reasons.released(name, how)
    return [ev for ev in events(hc, stack, name)
            if ev.resource_status_reason == text]


# -- log evidence -------------------------------------------------------------

def hold_line(name, action='CREATE'):
    """What parking.py logs in the engine that parked a hold."""
    return 'Breakpoint %s reached: %s held before %s' % (name, name, action)


def clear_line(name, stack, hook='pre-create'):
    """What Heat logs in the engine that serves the release signal."""
    return 'Clearing %s hook on TestResource "%s" Stack "%s"' % (
        hook, name, stack)


def engine_of(cluster, needle, timeout=30):
    """The one engine whose log has ``needle`` (waits for the line)."""
    found = wait_for(lambda: cluster.engines_logging(needle), timeout,
                     what='an engine log with %r' % needle)
    assert len(found) == 1, (needle, found)
    return found[0]


# -- the CLIs -----------------------------------------------------------------

def openstack(cluster, *argv):
    """The real OSC shell, in this process: (exit code, stdout, stderr)."""
    return conftest.run_openstack(cluster, *argv)


def osc_ok(cluster, *argv):
    code, out, err = openstack(cluster, *argv)
    assert code == 0, (argv, code, out, err)
    return out


def osc_json(cluster, *argv):
    return json.loads(osc_ok(cluster, *(argv + ('-f', 'json'))))


def openstack_process(cluster, *argv):
    """``openstack`` as a separate process (a second client), not waited."""
    env = dict(os.environ, **cluster.env)
    return subprocess.Popen([os.path.join(BIN, 'openstack')] + list(argv),
                            env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
