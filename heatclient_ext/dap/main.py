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

On stdin/stdout the local Heat the session will likely need is launched
before anything else (:mod:`.local_process`).

SIGINT, SIGTERM and SIGHUP end every session as the end of its stream
does, and the adapter exits 0 once they have ended: editors stop an
adapter that way as part of a normal end (nvim-dap closes stdin and
sends SIGINT at once; VS Code sends SIGTERM after ``disconnect``). The
signal only asks: the sessions are served in threads, the main thread
waits, and no exception ever lands inside a session's cleanup, which
stops the local Heat it started and removes its directory.
"""

import argparse
import logging
import os
import signal
import socket
import sys
import threading

from heat_breakpoint import listen
from heatclient_ext._i18n import _
from heatclient_ext.dap import framing
from heatclient_ext.dap import local_process

LOG = logging.getLogger(__name__)
#: Connections waiting to be accepted.
BACKLOG = 16
#: How long the adapter waits, once asked to stop, for its sessions'
#: cleanup (a cancel sent, a local Heat stopped).
LEAVE_TIMEOUT = 60
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


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

    def leave(self, timeout=LEAVE_TIMEOUT) -> None:
        """End every session as a lost stream does; wait for their end.

        A session already leaving (its stream ended first) goes on in
        its own thread: this waits for it too.
        """
        with self.lock:
            live = list(self.live)
        for sess in live:
            try:
                sess.leave()
            except Exception:  # the others must still end
                LOG.exception('leaving a session failed')
        for sess in live:
            sess.closed.wait(timeout)


def serve(reader, writer, sessions=None, prestart=False) -> None:
    """Run one session until the editor disconnects or the stream ends.

    The end of the stream, or a stream that cannot be read on, is a
    ``disconnect`` with the editor's defaults (:meth:`Session.leave`).
    ``prestart``: start a local Heat at ``initialize``.
    """
    # Imported here: on stdin/stdout the local Heat is launched first
    # (main), and this import is most of the adapter's own start.
    from heatclient_ext.dap import session as dap_session
    out = framing.Writer(writer)
    sess = dap_session.Session(out.send, prestart=prestart)
    if sessions is not None:
        sessions.add(sess)
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
    finally:
        try:
            sess.leave()
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


def _accept(server, sessions, done) -> None:
    try:
        while True:
            conn, _addr = server.accept()
            threading.Thread(target=_serve_connection,
                             args=(conn, sessions), daemon=True).start()
    except OSError:
        pass  # closed: the adapter stops
    finally:
        done.set()


class _Run:
    """The adapter's one stdio session, run in a thread; its exit status."""

    def __init__(self, done) -> None:
        self.done = done
        self.code = 0

    def stdio(self, sessions) -> None:
        # A reader of our own, not sys.stdin's: when a signal ends the
        # adapter, this thread may still be blocked in it, and the
        # interpreter closes sys.stdin at exit, which would wait for the
        # lock this thread holds (a fatal error). Nothing closes this one.
        reader = os.fdopen(os.dup(sys.stdin.fileno()), 'rb')
        try:
            serve(reader, sys.stdout.buffer, sessions, prestart=True)
        except framing.ProtocolError as exc:
            print(exc, file=sys.stderr)
            self.code = 1
        except Exception:
            LOG.exception('session failed')
            self.code = 1
        finally:
            self.done.set()


def _quiet_stdout() -> None:
    """No complaint about an editor that closed our stdout first.

    Python flushes stdout once more at exit, and makes a failure of it
    exit status 120.
    """
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


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
    done = threading.Event()
    for signum in SIGNALS:
        signal.signal(signum, lambda signum, frame: done.set())
    sessions = Sessions()
    run = _Run(done)
    server = None
    if args.port is not None:
        try:
            server = listen.bind(args.port, BACKLOG)
        except listen.ListenError as exc:
            print(_('heat-breakpoint dap: error: %s') % exc,
                  file=sys.stderr)
            return 1
        print(_('heat-breakpoint dap listening on 127.0.0.1:%d') %
              server.getsockname()[1], file=sys.stderr, flush=True)
        threading.Thread(target=_accept, args=(server, sessions, done),
                         daemon=True).start()
    else:
        local_process.launch_early()
        threading.Thread(target=run.stdio, args=(sessions,),
                         daemon=True).start()
    # A timeout, so that a signal is seen however the wait is built.
    while not done.wait(0.5):
        pass
    if server is not None:
        server.close()
    sessions.leave()
    local_process.discard_early()
    _quiet_stdout()
    return run.code


if __name__ == '__main__':
    sys.exit(main())
