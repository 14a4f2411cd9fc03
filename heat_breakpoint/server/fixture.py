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
"""A local Heat for tests, benchmarks and tools: one process, started here.

``LocalHeatProcess`` runs ``python -m heat_breakpoint.server`` on a free
port with a state directory of the caller's, exactly as a user would, and
waits until heat-api answers. Our functional tests, the corpus tier and
the benchmarks start their Heat with it; downstream projects can too, as
oslo.context ships its own fixture.
"""

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time

import requests

START_TIMEOUT = 120


def free_port() -> int:
    with contextlib.closing(socket.socket()) as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class LocalHeatProcess:
    """One ``heat-breakpoint-server`` process and how to reach it."""

    def __init__(self, state_dir, port=None, config_files=(),
                 extra_args=()):
        self.state_dir = state_dir
        self.port = port or free_port()
        self.config_files = list(config_files)
        self.extra_args = list(extra_args)
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
        cmd += self.extra_args
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
                # 401: up, behind a Keystone (--keystone).
                if requests.get(self.endpoint + '/stacks',
                                timeout=2).status_code in (200, 401):
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


@contextlib.contextmanager
def local_heat(prefix='heat-breakpoint-', *args):
    """A local Heat in a new state directory, removed when done.

    ``args`` go to ``heat-breakpoint-server`` (``--no-leaf-sleep``,
    ``--faults FILE``...).
    """
    import tempfile
    server = LocalHeatProcess(tempfile.mkdtemp(prefix=prefix),
                              extra_args=args)
    server.start(reset=True)
    try:
        yield server
    finally:
        server.remove()
