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
"""A debug session's local Heat process, and the one launched at start.

Most of an editor's F5 with no local Heat running is that Heat's own
start (about 1.3 s, Heat importing its resource and client plugins).
The adapter on stdin/stdout serves one session, which starts a local
Heat unless its launch names another Heat; so ``heat-breakpoint dap``
launches that process first thing, before it imports the rest of itself
(about 0.3 s) and before the editor's ``initialize``. The session takes
it over at ``initialize``; a launch that names a cloud or an endpoint
stops it, as it stops one started at ``initialize``; an adapter that
ends before any session took it stops it too (:func:`discard_early`).

Standard library and the server's fixture only: this is imported before
anything else of the adapter.
"""

import os
import tempfile
import threading

from heat_breakpoint.server import fixture

#: Seconds between two looks at whether the local Heat answers.
READY_POLL = 0.05
#: What the session's own server runs with: independent resources
#: start at once (no Heat's one-second pause between them), and the
#: state directory goes with the server, however it is stopped.
SERVER_ARGS = ('--no-leaf-sleep', '--remove-state-dir')

_lock = threading.Lock()
_early = None
_closed = False


def new_process() -> fixture.LocalHeatProcess:
    """A local Heat process (not launched) in a new state directory.

    The server's output goes inside that directory, so that one
    directory is all there is to remove.
    """
    state_dir = tempfile.mkdtemp(prefix='heat-breakpoint-dap-')
    process = fixture.LocalHeatProcess(
        state_dir, extra_args=SERVER_ARGS, lifeline=True,
        ready_poll=READY_POLL)
    process.output = os.path.join(state_dir, 'server.out')
    return process


def launch_early() -> None:
    """Launch the local Heat the adapter's one session will likely use.

    Any trouble only means the session starts its own, as before.
    """
    global _early
    with _lock:
        if _early is not None or _closed:
            return
        try:
            _early = new_process().launch()
        except OSError:
            _early = None


def take_early():
    """The process :func:`launch_early` launched (once), or None."""
    global _early
    with _lock:
        process, _early = _early, None
        return process


def discard_early() -> None:
    """Stop and remove an early process no session took; no more after."""
    global _closed
    with _lock:
        _closed = True
    process = take_early()
    if process is not None:
        process.remove(timeout=30)
