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
"""Fixtures for the functional tier: a real local Heat, started once.

``heat_server`` runs ``python -m heat_breakpoint.server`` in a separate
process on a free port with a fresh state directory, exactly as a user
would, and stops it at the end of the session.
"""

import contextlib
import io
import logging
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import pytest
import requests

START_TIMEOUT = 120


def free_port() -> int:
    with contextlib.closing(socket.socket()) as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class LocalHeatProcess:
    """One ``heat-breakpoint-server`` process and how to reach it."""

    def __init__(self, state_dir, port=None, config_files=()):
        self.state_dir = state_dir
        self.port = port or free_port()
        self.config_files = list(config_files)
        self.proc = None
        self.output = state_dir.rstrip('/') + '.out'

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self.port

    @property
    def endpoint(self):
        return '%s/v1/admin' % self.url

    @property
    def env(self):
        return {'OS_AUTH_TYPE': 'none', 'OS_ENDPOINT': self.endpoint}

    @property
    def log_file(self):
        return os.path.join(self.state_dir, 'heat.log')

    def start(self, reset=False):
        os.makedirs(self.state_dir, exist_ok=True)
        cmd = [sys.executable, '-m', 'heat_breakpoint.server',
               '--port', str(self.port), '--state-dir', self.state_dir]
        if reset:
            cmd.append('--reset')
        for conf in self.config_files:
            cmd += ['--config-file', conf]
        out = open(self.output, 'ab')
        self.proc = subprocess.Popen(cmd, stdout=out,
                                     stderr=subprocess.STDOUT)
        out.close()
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError('server exited with %s:\n%s' % (
                    self.proc.returncode, self.read_output()))
            try:
                if requests.get(self.endpoint + '/stacks',
                                timeout=2).status_code == 200:
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.3)
        self.stop()
        raise RuntimeError('server did not answer in %ds:\n%s'
                           % (START_TIMEOUT, self.read_output()))

    def read_output(self):
        with open(self.output, errors='replace') as out:
            return out.read()[-5000:]

    def stop(self, sig=None, timeout=60):
        if self.proc is None:
            return None
        if sig is None:
            self.proc.terminate()
        else:
            self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        self.proc = None
        return code

    def remove(self):
        """Stop, then delete the state directory and the output file."""
        self.stop()
        shutil.rmtree(self.state_dir, ignore_errors=True)
        if os.path.exists(self.output):
            os.unlink(self.output)

    def client(self, project='admin'):
        """A heatclient v1 client (noauth: the URL names the project)."""
        from heatclient import client as heat_client
        from keystoneauth1 import noauth
        from keystoneauth1 import session
        sess = session.Session(auth=noauth.NoAuth())
        return heat_client.Client(
            '1', session=sess,
            endpoint_override='%s/v1/%s' % (self.url, project))


def forget_osc_clients():
    """Drop the API clients OSC caches process-wide.

    OSC keeps them on the ClientManager class, so a run against another
    server would reuse the previous endpoint.
    """
    from openstackclient.common import clientmanager
    from osc_lib import clientmanager as osc_clientmanager
    for cls in clientmanager.ClientManager.__mro__:
        for value in vars(cls).values():
            if isinstance(value, osc_clientmanager.ClientCache):
                value._handle = None


def run_openstack(server, *argv):
    """Run the real OSC shell in-process: (exit code, stdout, stderr).

    ``server`` is anything with the ``OS_*`` settings in ``.env``.
    """
    from openstackclient import shell
    forget_osc_clients()
    stdout, stderr = io.StringIO(), io.StringIO()
    saved = {k: os.environ.get(k) for k in server.env}
    os.environ.update(server.env)
    # OSC sets the root logger to DEBUG and adds handlers: undo that, or
    # every later request is logged (and captured) in full.
    root = logging.getLogger()
    root_level, root_handlers = root.level, list(root.handlers)
    try:
        with contextlib.redirect_stdout(stdout), \
                contextlib.redirect_stderr(stderr):
            try:
                code = shell.main(list(argv))
            except SystemExit as exc:
                code = exc.code
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        root.setLevel(root_level)
        for handler in list(root.handlers):
            if handler not in root_handlers:
                root.removeHandler(handler)
    return code, stdout.getvalue(), stderr.getvalue()


@pytest.fixture(scope='session')
def heat_server():
    state_dir = tempfile.mkdtemp(prefix='heat-breakpoint-functional-')
    server = LocalHeatProcess(state_dir).start(reset=True)
    yield server
    server.remove()


@pytest.fixture
def heat(heat_server):
    return heat_server.client()


@pytest.fixture
def stack_name():
    return 'test-%s' % uuid.uuid4().hex[:8]
