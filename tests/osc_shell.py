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
"""The real OSC shell, in-process: for tests and benchmarks alike.

One copy: the functional tier's fixtures and the benchmarks run
``openstack`` commands the same way, against any server whose ``OS_*``
settings are in its ``.env``.
"""

import contextlib
import io
import logging
import os


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


@contextlib.contextmanager
def server_environment(server):
    """``server.env`` (its ``OS_*`` settings) in os.environ, then as was."""
    saved = {k: os.environ.get(k) for k in server.env}
    os.environ.update(server.env)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def run_openstack(server, *argv):
    """Run the real OSC shell in-process: (exit code, stdout, stderr).

    ``server`` is anything with the ``OS_*`` settings in ``.env``.
    """
    from openstackclient import shell
    forget_osc_clients()
    stdout, stderr = io.StringIO(), io.StringIO()
    # OSC sets the root logger to DEBUG and adds handlers: undo that, or
    # every later request is logged (and captured) in full.
    root = logging.getLogger()
    root_level, root_handlers = root.level, list(root.handlers)
    try:
        with server_environment(server), \
                contextlib.redirect_stdout(stdout), \
                contextlib.redirect_stderr(stderr):
            try:
                code = shell.main(list(argv))
            except SystemExit as exc:
                code = exc.code
    finally:
        root.setLevel(root_level)
        for handler in list(root.handlers):
            if handler not in root_handlers:
                root.removeHandler(handler)
    return code, stdout.getvalue(), stderr.getvalue()
