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
"""A short tour: a real local Heat, a real template stopped at a breakpoint.

Run it with ``python examples/demo.py``. It starts ``heat-breakpoint-server``
(:func:`heat_breakpoint.server.fixture.local_heat`: a free port, a
throwaway state directory) and creates ``examples/web_server.yaml`` — a
server on a new network with a floating IP and a volume, run on the
server's simulated cloud — held before the server. It drives the real
``openstack`` command line, prints each command and its output, and
stops the server.
"""

import os
import shlex
import subprocess
import sys
import time

from heat_breakpoint.server import fixture

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.dirname(sys.executable)


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


def main():
    with fixture.local_heat('heat-breakpoint-demo-') as server:
        env = dict(os.environ, PYTHONWARNINGS='ignore', **server.env)
        print('Started a real Heat (API + convergence engine) on %s, '
              'with a simulated cloud for the services it lacks'
              % server.endpoint)
        template = os.path.relpath(os.path.join(HERE, 'web_server.yaml'))
        run(env, 'openstack', 'stack', 'create', 'demo', '-t', template,
            '--parameter', 'db_password=s3cret-pw',
            '--breakpoint', 'web', '--wait', '-c', 'stack_status',
            '-c', 'held_breakpoints')
        run(env, 'openstack', 'stack', 'resource', 'list', 'demo',
            '-c', 'resource_name', '-c', 'resource_status')
        run(env, 'openstack', 'stack', 'breakpoint', 'list', 'demo')
        # The server's inputs as Heat resolved them: the port it boots on,
        # and a boot script with the hidden password masked.
        run(env, 'openstack', 'stack', 'breakpoint', 'show', 'demo', 'web')
        run(env, 'openstack', 'stack', 'breakpoint', 'continue', 'demo')
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            status = run(env, 'openstack', 'stack', 'show', 'demo', '-f',
                         'value', '-c', 'stack_status').strip()
            if status != 'CREATE_IN_PROGRESS':
                break
            time.sleep(2)
        run(env, 'openstack', 'stack', 'output', 'list', 'demo')
        run(env, 'openstack', 'stack', 'output', 'show', 'demo',
            'public_ip', '-c', 'output_value')
        if status != 'CREATE_COMPLETE':
            raise SystemExit('demo stack ended %s' % status)
        print('\nDemo complete: the stack stopped before its server with '
              'network, port and volume ready, showed what the server would '
              'boot with (the password masked), and continue completed it.')


if __name__ == '__main__':
    main()
