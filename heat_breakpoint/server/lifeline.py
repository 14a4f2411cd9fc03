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
"""``--exit-with-fd``: a server that ends when its starter does.

A program that starts a throwaway local Heat (the DAP adapter) may die
before it stops it: killed -9, or interrupted inside its own cleanup.
The server would then serve its port forever, reparented to PID 1. The
starter keeps the write end of a pipe and hands the read end to the
server; the kernel closes the write end however the starter ends, so the
server reads EOF and stops as on SIGTERM. A pipe rather than
``PR_SET_PDEATHSIG``: that fires when the *thread* that forked exits,
and the adapter starts its server from a short-lived thread.
"""

import os
import threading


def watch(fd: int, on_end) -> threading.Thread:
    """Call ``on_end()`` once ``fd`` reaches its end (or cannot be read)."""
    def _read():
        try:
            while os.read(fd, 4096):
                pass  # the starter writes nothing; tolerate it if it does
        except OSError:
            pass
        finally:
            try:
                os.close(fd)
            except OSError:
                pass
        on_end()

    thread = threading.Thread(target=_read, name='lifeline', daemon=True)
    thread.start()
    return thread
