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
"""``heat-breakpoint dap [--port N]``: serve one editor's debug sessions.

On stdin/stdout by default (how VS Code, nvim-dap and dape start an
adapter); with ``--port`` a TCP server on 127.0.0.1 that serves one
session after another, for clients that attach to a running adapter.
Nothing but DAP messages is written to stdout; logs go to stderr.
"""

import argparse
import logging
import signal
import socket
import sys

from heatclient_ext._i18n import _
from heatclient_ext.dap import framing
from heatclient_ext.dap import session as dap_session

LOG = logging.getLogger(__name__)


def serve(reader, writer):
    """Run one session until the editor disconnects or the stream ends."""
    out = framing.Writer(writer)
    sess = dap_session.Session(out.send)
    try:
        while not sess.ended.is_set():
            message = framing.read_message(reader)
            if message is None:
                break
            if message.get('type') == 'request':
                sess.handle(message)
    finally:
        sess.close()


def _listen(port):
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(('127.0.0.1', port))
    server.listen(1)
    print(_('heat-breakpoint dap listening on 127.0.0.1:%d') %
          server.getsockname()[1], file=sys.stderr, flush=True)
    while True:
        conn, _addr = server.accept()
        with conn:
            reader, writer = conn.makefile('rb'), conn.makefile('wb')
            try:
                serve(reader, writer)
            except (OSError, framing.ProtocolError) as exc:
                LOG.warning('session ended: %s', exc)


def _stop(signum, frame):
    raise SystemExit(128 + signum)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='heat-breakpoint dap',
        description=_('Debug Adapter Protocol server for Heat templates.'))
    parser.add_argument('--port', type=int, metavar='<port>',
                        help=_('Listen on 127.0.0.1:<port> instead of '
                               'speaking on stdin/stdout.'))
    parser.add_argument('--debug', action='store_true',
                        help=_('Log requests to stderr.'))
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr,
                        level=logging.DEBUG if args.debug else
                        logging.WARNING)
    # Stopped by the editor: end through the finally blocks, which stop
    # a local Heat this adapter started.
    signal.signal(signal.SIGTERM, _stop)
    try:
        if args.port is not None:
            _listen(args.port)
        else:
            serve(sys.stdin.buffer, sys.stdout.buffer)
    except KeyboardInterrupt:
        return 130
    except framing.ProtocolError as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
