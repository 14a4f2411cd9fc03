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
"""``heat-breakpoint dap [--port N]``: serve editors' debug sessions.

On stdin/stdout by default (how VS Code, nvim-dap and dape start an
adapter); with ``--port`` a TCP server on 127.0.0.1 for clients that
connect to a running adapter: each connection is a session of its own,
served at the same time as the others, each on its own stack. A
connection that ends without ``disconnect`` (the editor died, the
network went) is a disconnect with the editor's defaults; a malformed
message ends at most its own session, with an ``output`` saying why.
Nothing but DAP messages is written to stdout; logs go to stderr.
"""

import argparse
import logging
import signal
import socket
import sys
import threading

from heat_breakpoint import listen
from heatclient_ext._i18n import _
from heatclient_ext.dap import framing
from heatclient_ext.dap import session as dap_session

LOG = logging.getLogger(__name__)
#: Connections waiting to be accepted.
BACKLOG = 16


class Sessions:
    """The sessions a listener serves, closed together when it stops."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.live = set()

    def add(self, sess) -> None:
        with self.lock:
            self.live.add(sess)

    def remove(self, sess) -> None:
        with self.lock:
            self.live.discard(sess)

    def close(self) -> None:
        """Stop every session (and the local Heat each started)."""
        with self.lock:
            live, self.live = list(self.live), set()
        for sess in live:
            sess.close()


def serve(reader, writer, sessions=None) -> None:
    """Run one session until the editor disconnects or the stream ends.

    The end of the stream, or a stream that cannot be read on, is a
    ``disconnect`` with the editor's defaults (:meth:`Session.leave`).
    """
    out = framing.Writer(writer)
    sess = dap_session.Session(out.send)
    if sessions is not None:
        sessions.add(sess)
    lost = True
    try:
        while not sess.ended.is_set():
            try:
                message = framing.read_message(reader)
            except framing.BadMessage as exc:
                sess.say(_('ignored a message: %s') % exc, 'important')
                continue
            except framing.ProtocolError as exc:
                sess.say(_('the session ends: %s') % exc, 'important')
                raise
            if message is None:
                break
            if message.get('type') == 'request':
                sess.handle(message)
    except (SystemExit, KeyboardInterrupt):
        lost = False  # stopped, not lost: end without touching the stack
        raise
    finally:
        try:
            if lost:
                sess.leave()
            else:
                sess.close()
        finally:
            if sessions is not None:
                sessions.remove(sess)


def _serve_connection(conn, sessions) -> None:
    reader, writer = conn.makefile('rb'), conn.makefile('wb')
    try:
        serve(reader, writer, sessions)
    except (OSError, framing.ProtocolError) as exc:
        LOG.warning('session ended: %s', exc)
    except Exception:  # one session's bug must not stop the others
        LOG.exception('session failed')
    finally:
        # The editor sees the end: the files hold the socket open.
        for stream in (reader, writer):
            try:
                stream.close()
            except OSError:
                pass
        try:
            conn.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # the editor closed it first
        conn.close()


def _listen(port) -> None:
    server = listen.bind(port, BACKLOG)
    print(_('heat-breakpoint dap listening on 127.0.0.1:%d') %
          server.getsockname()[1], file=sys.stderr, flush=True)
    sessions = Sessions()
    try:
        while True:
            conn, _addr = server.accept()
            threading.Thread(target=_serve_connection,
                             args=(conn, sessions), daemon=True).start()
    finally:
        server.close()
        sessions.close()


def _stop(signum, frame):
    raise SystemExit(128 + signum)


def main(argv=None) -> int:
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
    except listen.ListenError as exc:
        print(_('heat-breakpoint dap: error: %s') % exc, file=sys.stderr)
        return 1
    except framing.ProtocolError as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
