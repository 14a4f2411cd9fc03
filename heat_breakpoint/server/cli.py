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
"""``heat-breakpoint-server``: the real Heat, API and engine, in one process.

For debugging templates on a laptop and for our functional tests: Heat's
own ``EngineService`` (convergence) and Heat's own heat-api paste app, on
127.0.0.1, with SQLite in a state directory, oslo.messaging's in-process
``fake://`` transport and no Keystone (``noauth``), or with ``--keystone``
a real one, as a cloud runs Heat. The plugin and the API filter are
loaded exactly as in a deployed Heat: stevedore and paste.
"""

import argparse
import configparser
import logging
import os
import shutil
import signal
import socket
import sys
import threading
import warnings

from heat_breakpoint.server import config as local_config
from heat_breakpoint.server import lifeline
from heat_breakpoint.server import local_heat

DEFAULT_PORT = 8004
HOST = '127.0.0.1'


def default_state_dir() -> str:
    data_home = os.environ.get('XDG_DATA_HOME') or os.path.join(
        os.path.expanduser('~'), '.local', 'share')
    return os.path.join(data_home, 'heat-breakpoint')


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog='heat-breakpoint-server',
        description='Run a real local Heat (API and engine in one process, '
                    'SQLite, no Keystone) with stack breakpoints enabled, '
                    'and a simulated cloud for the services it lacks. '
                    '"heat-breakpoint-server faults --help": the fault '
                    'rules of a running one.')
    parser.add_argument('--port', type=int, default=DEFAULT_PORT,
                        metavar='<port>',
                        help='TCP port on 127.0.0.1 (default: %(default)s; '
                             '0 picks a free one)')
    parser.add_argument('--state-dir', default=default_state_dir(),
                        metavar='<dir>',
                        help='where the database, heat.conf and heat.log '
                             'live (default: %(default)s)')
    parser.add_argument('--reset', action='store_true',
                        help='delete every stack: start from an empty '
                             'state directory')
    parser.add_argument('--config-file', action='append', default=[],
                        metavar='<file>',
                        help='extra heat.conf read after the generated one '
                             '(repeatable), e.g. to set '
                             'executor_thread_pool_size')
    parser.add_argument('--cloud', metavar='<file>',
                        help='a YAML inventory of the cloud to simulate '
                             '(flavors, images, networks, key pairs...): '
                             'lookups of other names fail as in that cloud '
                             '(default: every name is assumed to exist, '
                             'and reported)')
    parser.add_argument('--faults', metavar='<file>',
                        help='fault rules (YAML) for the simulated cloud: '
                             'resources that fail, take time or hang on '
                             'purpose')
    parser.add_argument('--realistic-times', action='store_true',
                        help='simulated resources take as long to build '
                             'as in a real cloud (a server tens of '
                             'seconds, a port a second)')
    parser.add_argument('--no-simulate', dest='simulate',
                        action='store_false',
                        help='simulate no cloud: resource types of '
                             'services other than Heat are unavailable')
    parser.add_argument('--keystone', metavar='<url>',
                        help='authenticate callers with the Keystone at '
                             'this URL, as a cloud does: its tokens '
                             '(keystonemiddleware), work deferred to '
                             'trusts, secure RBAC. Heat\'s own account '
                             'there comes from OS_USERNAME, OS_PASSWORD, '
                             'OS_PROJECT_NAME (default: service), '
                             'OS_USER_DOMAIN_NAME and '
                             'OS_PROJECT_DOMAIN_NAME (default: Default); '
                             'default: no Keystone (noauth)')
    parser.add_argument('--no-leaf-sleep', dest='leaf_sleep',
                        action='store_false',
                        help="start a stack's independent resources at "
                             "once, without Heat's one-second pause "
                             "between them")
    parser.add_argument('--exit-with-fd', type=int, metavar='<fd>',
                        help='stop when this inherited file descriptor '
                             'reaches its end: the program that started '
                             'the server holds the other end of the pipe, '
                             'and its exit, however it ends, stops the '
                             'server')
    parser.add_argument('--remove-state-dir', action='store_true',
                        help='remove the state directory when the server '
                             'stops (a throwaway server)')
    return parser


def bind(port: int) -> socket.socket:
    from heat_breakpoint import listen  # as the DAP adapter binds
    try:
        return listen.bind(port)
    except listen.ListenError as exc:
        raise local_config.SetupError(str(exc))


def prepare_state_dir(state_dir: str, reset: bool) -> None:
    if os.path.exists(state_dir) and not os.path.isdir(state_dir):
        raise local_config.SetupError(
            '--state-dir %s is a file, not a directory' % state_dir)
    try:
        if reset and os.path.isdir(state_dir):
            shutil.rmtree(state_dir)
        os.makedirs(state_dir, exist_ok=True)
    except OSError as exc:
        # A parent that cannot be made (/proc), no permission: one line.
        raise local_config.SetupError(
            '--state-dir %s cannot be used: %s'
            % (state_dir, exc.strerror or exc))


def keystone_auth(url: str, environ=os.environ):
    """Heat's account at the Keystone of ``--keystone``, from ``OS_*``."""
    missing = [name for name in ('OS_USERNAME', 'OS_PASSWORD')
               if not environ.get(name)]
    if missing:
        raise local_config.SetupError(
            '--keystone needs the account Heat authenticates as there '
            '(its service user) in %s' % ' and '.join(missing))
    return local_config.KeystoneAuth(
        url=url, username=environ['OS_USERNAME'],
        password=environ['OS_PASSWORD'],
        project=environ.get('OS_PROJECT_NAME') or 'service',
        user_domain=environ.get('OS_USER_DOMAIN_NAME') or 'Default',
        project_domain=environ.get('OS_PROJECT_DOMAIN_NAME') or 'Default',
        region=environ.get('OS_REGION_NAME') or 'RegionOne')


def client_settings(port: int, keystone=None) -> dict:
    if keystone is not None:
        return {'OS_AUTH_TYPE': 'password', 'OS_AUTH_URL': keystone.url}
    return {'OS_AUTH_TYPE': 'none',
            'OS_ENDPOINT': 'http://%s:%d/v1/admin' % (HOST, port)}


def auth_line(port: int, keystone=None) -> str:
    """What the start banner says of the auth the server runs with."""
    if keystone is None:
        return ('Auth: none (noauth): every caller is admin of project '
                'admin, no policy enforced.')
    return ('Auth: Keystone at %s: its tokens (keystonemiddleware, paste '
            'flavor %s), work deferred to trusts, secure RBAC; Heat is '
            '%s of project %s there. Clients find Heat in the catalog '
            '(orchestration: http://%s:%d/v1/%%(project_id)s).'
            % (keystone.url, local_config.KEYSTONE_FLAVOR,
               keystone.username, keystone.project, HOST, port))


def _paste_deploy(config_files) -> tuple:
    """(flavor, api_paste_config) the ``--config-file`` files set, or None.

    Read as oslo.config will read them: the last file that sets one wins.
    """
    flavor = paste_file = None
    for path in config_files:
        conf = configparser.RawConfigParser(strict=False)
        try:
            conf.read(path)
        except configparser.Error:
            continue  # Heat itself says what is wrong with it
        if conf.has_option('paste_deploy', 'flavor'):
            flavor = conf.get('paste_deploy', 'flavor')
        if conf.has_option('paste_deploy', 'api_paste_config'):
            paste_file = conf.get('paste_deploy', 'api_paste_config')
    return flavor, paste_file


def refuse_keystone_pipeline(config_files) -> None:
    """Without ``--keystone``, no ``--config-file`` may pick Keystone's.

    The simulated cloud stands in for Keystone only where there is none
    (noauth: every caller admin, no trust made); a pipeline that
    validates tokens (``authtoken``) with it would be neither what the
    banner says nor a Keystone deployment's Heat. Checked before the
    state directory is touched.
    """
    flavor, paste_file = _paste_deploy(config_files)
    if flavor is None:
        return  # the server's own noauth flavor
    paste = configparser.RawConfigParser(strict=False)
    if paste_file:
        paste.read(paste_file)
    else:
        paste.read(local_config.heat_paste_file())
        for section, (name, pipeline) in \
                local_config.keystone_pipelines().items():
            paste.set(section, name, pipeline)
    try:
        pipeline = paste.get('composite:api', flavor or 'default').split()
    except configparser.Error:
        return  # Heat itself says the flavor is unknown
    if 'authtoken' in pipeline:
        raise local_config.SetupError(
            '--config-file selects a Keystone pipeline (paste_deploy '
            'flavor %s) but no Keystone was given: run with --keystone '
            '<url> (Heat\'s account there in OS_USERNAME, OS_PASSWORD), '
            'or leave the flavor to the server' % (flavor or 'default'))


def serve(app, sock: socket.socket):
    """A threaded WSGI server on an already bound socket."""
    from wsgiref import simple_server

    class QuietHandler(simple_server.WSGIRequestHandler):
        def log_message(self, *args):
            pass

    class Server(simple_server.WSGIServer):
        daemon_threads = True
        block_on_close = False

        def process_request(self, request, client_address):
            thread = threading.Thread(
                target=self.process_request_thread,
                args=(request, client_address), daemon=True)
            thread.start()

        def process_request_thread(self, request, client_address):
            try:
                self.finish_request(request, client_address)
            except Exception:
                self.handle_error(request, client_address)
            finally:
                self.shutdown_request(request)

    httpd = Server(sock.getsockname(), QuietHandler,
                   bind_and_activate=False)
    httpd.socket.close()
    httpd.socket = sock
    httpd.server_address = sock.getsockname()
    httpd.server_name, httpd.server_port = httpd.server_address[:2]
    httpd.setup_environ()
    httpd.set_app(app)
    return httpd


def quiet_eventlet() -> None:
    """Hide eventlet's deprecation banner, which is not for our users.

    futurist (under oslo.messaging and Heat) imports eventlet when it is
    installed, and eventlet warns at import that it is deprecated. This
    server runs Heat on native threads; eventlet is only imported, never
    used. Only that one warning is filtered, by its text.
    """
    warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated',
                            category=Warning)


def exit_now(code: int) -> None:
    """Leave without the interpreter's exit handlers: all is stopped.

    futurist's exit handler joins its idle worker threads, each of which
    notices only after its one-second idle poll, and the interpreter's
    teardown of Heat's modules adds as much: seconds for nothing once the
    engine has stopped and the database is committed.
    """
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ['faults']:
        from heat_breakpoint.server import faults_cli
        return faults_cli.main(argv[1:])
    args = build_parser().parse_args(argv)
    if args.faults and not args.simulate:
        print('heat-breakpoint-server: error: --faults needs the simulated '
              'cloud (without --no-simulate)', file=sys.stderr)
        return 1
    quiet_eventlet()
    stopping = _Stopping(args.state_dir if args.remove_state_dir else None)
    if args.exit_with_fd is not None:
        lifeline.watch(args.exit_with_fd, stopping.stop)
    if args.remove_state_dir:
        # Stopped while starting: nothing to stop yet but the directory.
        signal.signal(signal.SIGTERM, stopping.stop)
        signal.signal(signal.SIGINT, stopping.stop)
    keystone = None
    sock = None
    try:
        if args.keystone:
            keystone = keystone_auth(args.keystone)
        else:
            refuse_keystone_pipeline(args.config_file)
        # The port first: a bad one must not reset the state directory.
        sock = bind(args.port)
        prepare_state_dir(args.state_dir, args.reset)
    except local_config.SetupError as exc:
        if sock is not None:
            sock.close()
        print('heat-breakpoint-server: error: %s' % exc, file=sys.stderr)
        return 1
    port = sock.getsockname()[1]

    heat = local_heat.LocalHeat(
        args.state_dir, args.config_file, port=port, simulate=args.simulate,
        cloud_file=args.cloud, leaf_sleep=args.leaf_sleep,
        faults_file=args.faults, realistic_times=args.realistic_times,
        keystone=keystone)
    try:
        heat.start()
    except local_config.SetupError as exc:
        sock.close()
        print('heat-breakpoint-server: error: %s' % exc, file=sys.stderr)
        heat.stop()
        return 1
    except Exception as exc:
        sock.close()
        print('heat-breakpoint-server: error: %s (details in %s)'
              % (str(exc).splitlines()[0],
                 os.path.join(args.state_dir, 'heat.log')),
              file=sys.stderr)
        heat.stop()
        return 1
    httpd = serve(heat.app, sock)
    stopping.serving(httpd)
    signal.signal(signal.SIGTERM, stopping.stop)
    signal.signal(signal.SIGINT, stopping.stop)

    settings = client_settings(port, keystone)
    print('Heat with breakpoints is running on http://%s:%d '
          '(state: %s)' % (HOST, port, args.state_dir))
    print(auth_line(port, keystone))
    print(heat.cloud.describe() if heat.cloud else
          'No simulated cloud (--no-simulate): only the resource types of '
          'Heat itself are available.')
    print('Client settings:')
    for key, value in settings.items():
        print('  export %s=%s' % (key, value))
    print('Stop with Ctrl-C.', flush=True)
    try:
        if not stopping.requested:
            httpd.serve_forever(poll_interval=0.2)
    finally:
        httpd.server_close()
        local_heat.stop_engine(heat)
        stopping.remove()
        print('heat-breakpoint-server: stopped', flush=True)
    exit_now(0)


class _Stopping:
    """A stop asked for by a signal or the lifeline, before or while serving.

    Before the server serves there is nothing to stop gracefully: the
    process leaves at once (removing a throwaway state directory).
    """

    def __init__(self, remove_dir=None) -> None:
        self.lock = threading.Lock()
        self.httpd = None
        self.requested = False
        self.remove_dir = remove_dir

    def serving(self, httpd) -> None:
        with self.lock:
            self.httpd = httpd

    def stop(self, signum=None, frame=None) -> None:
        with self.lock:
            self.requested = True
            httpd = self.httpd
        if httpd is not None:
            threading.Thread(target=httpd.shutdown, daemon=True).start()
            return
        self.remove()
        os._exit(0 if signum is None else 128 + signum)

    def remove(self) -> None:
        if self.remove_dir:
            shutil.rmtree(self.remove_dir, ignore_errors=True)
