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
"""Regenerate the graph picture of the README and the user guide,
doc/images/graph.svg.

Run it from the virtualenv that has the project installed, with Graphviz's
``dot`` on PATH: ``.venv/bin/python tools/graph_picture.py``. It starts
``heat-breakpoint-server`` on a free port with a throwaway state
directory (:func:`heat_breakpoint.server.fixture.local_heat`), creates
``examples/tiers.yaml`` held at two breakpoints in its nested stack,
prints ``openstack stack breakpoint graph`` (the user guide's text) and
pipes ``--dot`` to ``dot -Tsvg``.
"""

import json
import os
import shutil
import subprocess
import sys
import time

from heat_breakpoint.server import fixture

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.dirname(sys.executable)
PICTURE = os.path.join(ROOT, 'doc', 'images', 'graph.svg')
STACK = 'tiers'
BREAKPOINTS = ('web_tier/web_*', 'web_tier/lb')
HELD = {'web_tier/web_1', 'web_tier/web_2'}


def openstack(env, *argv):
    proc = subprocess.run([os.path.join(BIN, 'openstack')] + list(argv),
                          env=env, capture_output=True, text=True,
                          timeout=120)
    if proc.returncode:
        raise SystemExit('openstack %s failed:\n%s' % (' '.join(argv),
                                                       proc.stderr))
    return proc.stdout


def wait_held(env, timeout=90):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        rows = json.loads(openstack(env, 'stack', 'breakpoint', 'list',
                                    STACK, '-f', 'json'))
        if {row['Resource'] for row in rows
                if row['State'] == 'held'} >= HELD:
            return
        time.sleep(0.5)
    raise SystemExit('the stack was not held at %s' % sorted(HELD))


def main():
    if not shutil.which('dot'):
        raise SystemExit('needs Graphviz dot: apt-get install graphviz')
    with fixture.local_heat('heat-breakpoint-graph-') as server:
        env = dict(os.environ, PYTHONWARNINGS='ignore', **server.env)
        argv = ['stack', 'create', STACK, '-t',
                os.path.join(ROOT, 'examples', 'tiers.yaml')]
        for name in BREAKPOINTS:
            argv += ['--breakpoint', name]
        openstack(env, *argv)
        wait_held(env)
        print('$ openstack stack breakpoint graph %s' % STACK)
        print(openstack(env, 'stack', 'breakpoint', 'graph', STACK), end='')
        dot = openstack(env, 'stack', 'breakpoint', 'graph', STACK, '--dot')
        os.makedirs(os.path.dirname(PICTURE), exist_ok=True)
        subprocess.run(['dot', '-Tsvg', '-o', PICTURE], input=dot,
                       text=True, check=True, timeout=60)
        print('\nWrote %s' % os.path.relpath(PICTURE))


if __name__ == '__main__':
    main()
