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
"""The venv of ``pip install '.[server]'`` runs ``openstack`` quietly.

Heat pulls in many OpenStack clients, each of which plugs commands into
``openstack``; a client that declares a command it cannot load makes every
``openstack`` command print ``Could not load ...`` (python-blazarclient
4.6.0 did). These run the installed ``openstack`` script of this venv as a
user does, in a subprocess, and fail on any such line.
"""

import os
import subprocess
import sys

import pytest

OPENSTACK = os.path.join(os.path.dirname(sys.executable), 'openstack')
# What a client plugin that failed to load, or a deprecated one, prints.
NOISE = ('could not load', 'warning', 'deprecat')


def _run(env, *argv):
    full_env = dict(os.environ, **env)
    for name in ('PYTHONWARNINGS',):
        full_env.pop(name, None)
    return subprocess.run([OPENSTACK] + list(argv), env=full_env,
                          capture_output=True, text=True, timeout=180)


def _noise(text):
    return [line for line in text.splitlines()
            if any(word in line.lower() for word in NOISE)]


@pytest.mark.skipif(not os.path.exists(OPENSTACK),
                    reason='no openstack script in this venv')
@pytest.mark.parametrize('argv', [
    ('--help',),             # loads every command of every client
    ('command', 'list'),
    ('stack', 'list'),
    ('stack', 'breakpoint', 'list', '--help'),
])
def test_openstack_prints_no_load_warning(heat_server, argv):
    result = _run(heat_server.env, *argv)
    assert result.returncode == 0, result.stderr
    assert _noise(result.stderr) == []
    # --help and command list print the commands' help text on stdout,
    # which must not hold a load failure either.
    assert [line for line in result.stdout.splitlines()
            if 'could not load' in line.lower()] == []
