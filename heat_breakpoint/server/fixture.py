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
waits until heat-api answers. Our functional tests, the corpus tier, the
benchmarks and the DAP adapter (when the editor names no cloud) start
their Heat with it; downstream projects can too, as oslo.context ships its
own fixture.
"""

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import typing

START_TIMEOUT = 120
SERVER_MODULE = (sys.executable, '-m', 'heat_breakpoint.server')


def free_port() -> int:
    with contextlib.closing(socket.socket()) as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


class ServerStartError(RuntimeError):
    """The server exited, was stopped, or did not answer in time.

    ``why`` is ``'exited'`` (``returncode`` set), ``'stopped'`` (by
    :meth:`LocalHeatProcess.stop` from another thread) or ``'timeout'``
    (``timeout`` set); ``output`` is the end of what the server printed.
    """

    def __init__(self, message: str, why: str,
                 returncode: typing.Optional[int] = None,
                 timeout: typing.Optional[float] = None,
                 output: str = '') -> None:
        super().__init__(message)
        self.why = why
        self.returncode = returncode
        self.timeout = timeout
        self.output = output


class LocalHeatProcess:
    """One ``heat-breakpoint-server`` process and how to reach it.

    ``boot`` replaces ``python -m heat_breakpoint.server`` (a benchmark's
    variant boot script, say); the options follow it either way. ``cwd``
    is the process's working directory (default: the caller's).
    ``lifeline``: the server stops by itself when this process ends,
    however it ends (``--exit-with-fd``, :mod:`.lifeline`).
    ``ready_poll``: seconds between two looks at whether heat-api answers.
    """

    def __init__(self, state_dir: str, port: typing.Optional[int] = None,
                 config_files: typing.Iterable[str] = (),
                 extra_args: typing.Iterable[str] = (),
                 boot: typing.Optional[typing.Sequence[str]] = None,
                 cwd: typing.Optional[str] = None,
                 lifeline: bool = False, ready_poll: float = 0.3) -> None:
        self.state_dir = state_dir
        self.lifeline = lifeline
        self.ready_poll = ready_poll
        self._lifeline_fd = None
        self.port = port or free_port()
        self.config_files = list(config_files)
        self.extra_args = list(extra_args)
        self.boot = list(boot or SERVER_MODULE)
        self.cwd = cwd
        self.proc = None
        self.output = state_dir.rstrip('/') + '.out'

    @property
    def url(self) -> str:
        return 'http://127.0.0.1:%d' % self.port

    @property
    def endpoint(self) -> str:
        return '%s/v1/admin' % self.url

    @property
    def env(self) -> typing.Dict[str, str]:
        return {'OS_AUTH_TYPE': 'none', 'OS_ENDPOINT': self.endpoint}

    @property
    def log_file(self) -> str:
        return os.path.join(self.state_dir, 'heat.log')

    def launch(self, reset: bool = False) -> 'LocalHeatProcess':
        """Start the process; :meth:`wait_ready` waits for heat-api."""
        os.makedirs(self.state_dir, exist_ok=True)
        cmd = self.boot + ['--port', str(self.port),
                           '--state-dir', self.state_dir]
        if reset:
            cmd.append('--reset')
        for conf in self.config_files:
            cmd += ['--config-file', conf]
        cmd += self.extra_args
        pass_fds = ()
        if self.lifeline:
            # Ours is the write end, never inherited by other children:
            # the server sees EOF exactly when this process is gone.
            read_end, self._lifeline_fd = os.pipe()
            cmd += ['--exit-with-fd', str(read_end)]
            pass_fds = (read_end,)
        try:
            with open(self.output, 'ab') as out:
                self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                             stdout=out,
                                             stderr=subprocess.STDOUT,
                                             cwd=self.cwd, pass_fds=pass_fds)
        finally:
            for fd in pass_fds:
                os.close(fd)
        return self

    def wait_ready(self, timeout: float = START_TIMEOUT
                   ) -> 'LocalHeatProcess':
        """Wait until heat-api answers; :class:`ServerStartError` if not."""
        # Here, not at the top: an editor's adapter imports this module
        # before it answers the editor, and needs no HTTP until then.
        import requests
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            proc = self.proc
            if proc is None:  # stopped meanwhile, from another thread
                raise ServerStartError('server stopped before it answered',
                                       'stopped')
            if proc.poll() is not None:
                output = self.read_output()
                raise ServerStartError(
                    'server exited with %s:\n%s' % (proc.returncode, output),
                    'exited', returncode=proc.returncode, output=output)
            try:
                # 401: up, behind a Keystone (--keystone).
                if requests.get(self.endpoint + '/stacks',
                                timeout=2).status_code in (200, 401):
                    return self
            except requests.RequestException:
                pass
            time.sleep(self.ready_poll)
        output = self.read_output()
        raise ServerStartError('server did not answer in %ds:\n%s'
                               % (timeout, output), 'timeout',
                               timeout=timeout, output=output)

    def start(self, reset: bool = False,
              timeout: float = START_TIMEOUT) -> 'LocalHeatProcess':
        """Launch, wait until heat-api answers; stopped if it never does."""
        self.launch(reset)
        try:
            return self.wait_ready(timeout)
        except ServerStartError as exc:
            if exc.why == 'timeout':
                self.stop()
            raise

    def read_output(self) -> str:
        try:
            with open(self.output, errors='replace') as out:
                return out.read()[-5000:]
        except OSError:
            return ''

    def stop(self, sig: typing.Optional[int] = None,
             timeout: float = 60) -> typing.Optional[int]:
        proc, self.proc = self.proc, None
        if proc is None:
            return None
        if sig is None:
            proc.terminate()
        else:
            proc.send_signal(sig)
        try:
            code = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        fd, self._lifeline_fd = self._lifeline_fd, None
        if fd is not None:
            os.close(fd)
        return code

    def remove(self, timeout: float = 60) -> None:
        """Stop, then delete the state directory and the output file."""
        self.stop(timeout=timeout)
        shutil.rmtree(self.state_dir, ignore_errors=True)
        if os.path.exists(self.output):
            os.unlink(self.output)

    def client(self, project: str = 'admin'):
        """A heatclient v1 client (noauth: the URL names the project)."""
        from heatclient import client as heat_client
        from keystoneauth1 import noauth
        from keystoneauth1 import session
        sess = session.Session(auth=noauth.NoAuth())
        return heat_client.Client(
            '1', session=sess,
            endpoint_override='%s/v1/%s' % (self.url, project))


@contextlib.contextmanager
def local_heat(prefix: str = 'heat-breakpoint-', *args: str
               ) -> typing.Iterator[LocalHeatProcess]:
    """A local Heat in a new state directory, removed when done.

    ``args`` go to ``heat-breakpoint-server`` (``--no-leaf-sleep``,
    ``--faults FILE``...).
    """
    server = LocalHeatProcess(tempfile.mkdtemp(prefix=prefix),
                              extra_args=args)
    server.start(reset=True)
    try:
        yield server
    finally:
        server.remove()
