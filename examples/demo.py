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
"""A short tour: a real local Heat, a stack stopped at a breakpoint.

Run it with ``python examples/demo.py``. It starts ``heat-breakpoint-server``
on a free port with a throwaway state directory, drives it with the real
``openstack`` command line, prints each command and its output, and stops
the server.
"""

import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.dirname(sys.executable)


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def run(env, *argv):
    print('\n$ ' + ' '.join(shlex.quote(a) for a in argv), flush=True)
    proc = subprocess.run([os.path.join(BIN, argv[0])] + list(argv[1:]),
                          env=env, capture_output=True, text=True)
    print(proc.stdout.rstrip())
    errors = [line for line in proc.stderr.splitlines()
              if 'Could not load' not in line and 'Warning' not in line
              and line.strip() and not line.startswith('  ')]
    if errors:
        print('\n'.join(errors))
    if proc.returncode:
        raise SystemExit('demo step failed: %s' % ' '.join(argv))
    return proc.stdout


def wait_until_up(url, server, deadline=120):
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if server.poll() is not None:
            raise SystemExit('heat-breakpoint-server exited early')
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except OSError:
            time.sleep(0.5)
    raise SystemExit('heat-breakpoint-server did not start')


def main():
    port = free_port()
    state = tempfile.mkdtemp(prefix='heat-breakpoint-demo-')
    server = subprocess.Popen(
        [os.path.join(BIN, 'heat-breakpoint-server'), '--port', str(port),
         '--state-dir', state], stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True)
    env = dict(os.environ, OS_AUTH_TYPE='none',
               OS_ENDPOINT='http://127.0.0.1:%d/v1/admin' % port,
               PYTHONWARNINGS='ignore')
    try:
        wait_until_up(env['OS_ENDPOINT'] + '/stacks', server)
        print('Started a real Heat (API + convergence engine) on %s'
              % env['OS_ENDPOINT'])
        template = os.path.join(HERE, 'app.yaml')
        run(env, 'openstack', 'stack', 'create', 'demo', '-t', template,
            '--breakpoint', 'db_user', '--wait', '-c', 'stack_status',
            '-c', 'held_breakpoints')
        run(env, 'openstack', 'stack', 'resource', 'list', 'demo',
            '-c', 'resource_name', '-c', 'resource_status')
        run(env, 'openstack', 'stack', 'breakpoint', 'list', 'demo')
        run(env, 'openstack', 'stack', 'breakpoint', 'show', 'demo',
            'db_user')
        run(env, 'openstack', 'stack', 'breakpoint', 'continue', 'demo')
        run(env, 'openstack', 'stack', 'event', 'list', 'demo',
            '--resource', 'db_user')
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            status = run(env, 'openstack', 'stack', 'show', 'demo', '-f',
                         'value', '-c', 'stack_status').strip()
            if status != 'CREATE_IN_PROGRESS':
                break
            time.sleep(1)
        run(env, 'openstack', 'stack', 'output', 'show', 'demo', 'web',
            '-c', 'output_value')
        if status != 'CREATE_COMPLETE':
            raise SystemExit('demo stack ended %s' % status)
        print('\nDemo complete: the stack stopped before db_user, the web '
              'branch finished meanwhile, and continue completed it.')
    finally:
        server.terminate()
        server.wait(60)
        shutil.rmtree(state, ignore_errors=True)


if __name__ == '__main__':
    main()
