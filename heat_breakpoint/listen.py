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
"""Listening on 127.0.0.1, with one line saying why it cannot.

``heat-breakpoint-server`` and ``heat-breakpoint dap --port`` both take a
port from the user: a number out of range, a port in use or one the user
may not bind must be one clear line from either, not ``OverflowError``
from deep inside :mod:`socket`. No Heat import: the client side uses it.
"""

import errno
import socket

from heat_breakpoint._i18n import _

HOST = '127.0.0.1'
MAX_PORT = 65535


class ListenError(Exception):
    """The port cannot be listened on; the message says why in one line."""


def bind(port: int, backlog: int = 64) -> socket.socket:
    """A socket listening on ``HOST:port`` (0: a free port)."""
    if isinstance(port, bool) or not isinstance(port, int) or \
            not 0 <= port <= MAX_PORT:
        raise ListenError(_('--port %(port)s is not a TCP port: give one '
                            'from 1 to %(max)d, or 0 for a free one') % {
                                'port': port, 'max': MAX_PORT})
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
        sock.listen(backlog)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ListenError(_('port %(port)d on %(host)s is already in '
                                'use (another server?); choose another '
                                'with --port') % {'port': port,
                                                  'host': HOST})
        raise ListenError(_('cannot listen on %(host)s:%(port)d: '
                            '%(why)s') % {'host': HOST, 'port': port,
                                          'why': exc.strerror or exc})
    return sock
