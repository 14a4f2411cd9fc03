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
"""Small waits, look-ups and runs shared by the functional tests."""

import os
import sqlite3
import subprocess
import sys
import time


class Timeout(AssertionError):
    pass


def wait_for(predicate, timeout=60, interval=0.2, what='condition'):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise Timeout('timed out after %ss waiting for %s (last: %r)'
                  % (timeout, what, last))


def stack_status(hc, stack):
    return hc.stacks.get(stack).stack_status


def wait_stack(hc, stack, status, timeout=120):
    """Wait until the stack reaches ``status``; fail fast on a FAILED."""
    def reached():
        current = hc.stacks.get(stack)
        if current.stack_status.endswith('FAILED') and status != \
                current.stack_status:
            raise AssertionError('stack %s: %s (%s)' % (
                stack, current.stack_status,
                current.stack_status_reason))
        return current.stack_status == status and current
    return wait_for(reached, timeout, what='%s %s' % (stack, status))


def resources(hc, stack, nested_depth=0):
    return {r.resource_name: r
            for r in hc.resources.list(stack, nested_depth=nested_depth)}


def wait_resource(hc, stack, name, status, timeout=60):
    def reached():
        rsrc = hc.resources.get(stack, name)
        return rsrc.resource_status == status and rsrc
    return wait_for(reached, timeout, what='%s %s' % (name, status))


def events(hc, stack, resource=None):
    """The events of a stack or of one of its resources (none yet: [])."""
    from heatclient import exc
    try:
        return hc.events.list(stack, resource_name=resource) if resource \
            else hc.events.list(stack)
    except exc.HTTPNotFound:
        if resource is None:
            raise
        return []  # Heat answers 404 for a resource with no event yet


def chain_template(names):
    """``OS::Heat::TestResource`` each taking the output of the one before.

    The first one's value is ``one``; each waits for the one before it.
    """
    resources = {names[0]: {'type': 'OS::Heat::TestResource',
                            'properties': {'value': 'one'}}}
    for before, name in zip(names, names[1:]):
        resources[name] = {'type': 'OS::Heat::TestResource',
                           'properties': {'value': {
                               'get_attr': [before, 'output']}}}
    return {'heat_template_version': '2018-08-31', 'resources': resources}


def heat_breakpoint(server, *argv):
    """The console script in a subprocess: (exit code, stdout, stderr)."""
    env = dict(os.environ, **server.env)
    proc = subprocess.run(
        [sys.executable, '-c',
         'import sys; from heatclient_ext.shell import main; '
         'sys.exit(main())'] + list(argv),
        env=env, capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def heat_db(server, read_only=False):
    """The local server's SQLite database (Heat's tables and ours)."""
    path = os.path.join(server.state_dir, 'heat.sqlite')
    if read_only:
        return sqlite3.connect('file:%s?mode=ro' % path, uri=True,
                               timeout=30)
    return sqlite3.connect(path, timeout=30)


def example(name):
    """The path of a file of the project's ``examples`` folder."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                        '..', 'examples', name)
