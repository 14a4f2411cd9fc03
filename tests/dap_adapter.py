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
"""``heat-breakpoint dap`` driven as an editor does: for tests and benchmarks.

One copy: the functional tier's DAP tests and ``benchmarks/dap_latency.py``
run the adapter on stdin/stdout the same way, each message stamped with
when it was read (``time.perf_counter``), so that a benchmark measures
the arrival, not when it looked.
"""

import os
import queue
import shutil
import subprocess
import sys
import threading
import time

from heatclient_ext.dap import framing


def adapter_command():
    """The ``heat-breakpoint`` script of the Python running the tests."""
    found = os.path.join(os.path.dirname(sys.executable), 'heat-breakpoint')
    return found if os.path.exists(found) else shutil.which(
        'heat-breakpoint')


class Adapter:
    """``heat-breakpoint dap`` on stdin/stdout, and its messages.

    ``tmp``: its own temporary folder (what it leaves there is its own);
    ``stderr``: where its stderr goes (a pipe, read on failure, unless
    told).
    """

    def __init__(self, tmp=None, stderr=subprocess.PIPE):
        env = dict(os.environ, TMPDIR=str(tmp)) if tmp else None
        self.proc = subprocess.Popen(
            [adapter_command(), 'dap'], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=stderr, env=env)
        self.messages = queue.Queue()
        self.said = []
        self.seq = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        while True:
            try:
                message = framing.read_message(self.proc.stdout)
            except (OSError, ValueError):
                message = None
            if message is not None and message.get('event') == 'output':
                self.said.append(message['body']['output'])
            self.messages.put((time.perf_counter(), message))
            if message is None:
                return

    def request(self, command, **arguments):
        self.seq += 1
        self.proc.stdin.write(framing.encode({
            'seq': self.seq, 'type': 'request', 'command': command,
            'arguments': arguments}))
        self.proc.stdin.flush()
        return self.seq

    def wait(self, predicate, timeout=120):
        """The first message ``predicate`` accepts, and when it was read."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                at, message = self.messages.get(
                    timeout=max(0, deadline - time.monotonic()))
            except queue.Empty:
                message = None
            if message is None:
                raise AssertionError('nothing awaited came; said: %s'
                                     % ''.join(self.said)[-3000:])
            if predicate(message):
                return at, message

    def response(self, seq, timeout=120):
        return self.wait(lambda m: m.get('type') == 'response' and
                         m.get('request_seq') == seq, timeout)[1]

    def launch(self, template, stack, names, endpoint=None):
        """initialize, launch, function breakpoints NAMES, configured."""
        self.request('initialize', adapterID='heat')
        arguments = {'template': template, 'stack': stack}
        if endpoint is not None:
            arguments['endpoint'] = endpoint
        self.request('launch', **arguments)
        self.wait(lambda m: m.get('event') == 'initialized')
        self.request('setFunctionBreakpoints',
                     breakpoints=[{'name': name} for name in names])
        self.request('configurationDone')

    def disconnect_ending(self):
        """Disconnect ending the debuggee: answered, the adapter exits 0."""
        seq = self.request('disconnect', terminateDebuggee=True)
        assert self.response(seq)['success']
        assert self.proc.wait(60) == 0

    def kill(self):
        """Kill the adapter if it still runs (what a test leaves behind)."""
        if self.proc.poll() is None:
            self.proc.kill()

    def close(self):
        """Disconnect, the stack left as it is; killed if it lingers."""
        self.request('disconnect', terminateDebuggee=False)
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
