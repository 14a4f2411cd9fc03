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
"""A distributed Heat on loopback: RabbitMQ, MariaDB, heat-api, N engines.

This is the deployment an operator runs, shrunk onto one machine:

* RabbitMQ and MariaDB from Debian's packages (installed with apt-get if
  missing), started directly as processes with data directories in a
  temporary directory, bound to 127.0.0.1 on free ports: no systemd;
* one ``heat.conf`` for every Heat process (``transport_url`` to the
  broker, ``[database] connection`` to MariaDB, the ``noauth_breakpoint``
  paste flavor); Heat's schema from ``heat-manage db_sync``, ours from
  ``heat-breakpoint-manage db_sync``;
* heat-api: Heat's own WSGI application (``heat.api.openstack.wsgi``, what
  ``heat-wsgi-api`` serves) in a small threaded WSGI server
  (``api_server.py`` beside this file);
* several ``heat-engine`` processes (Heat's console script,
  ``num_engine_workers = 1``), each with a host name and a log file of its
  own. heat-breakpoint's engine plugin loads itself in each through its
  entry point.

Every process is started in a session of its own and stopped through its
process group id (heat-engine forks a worker; RabbitMQ runs Erlang under a
shell script), SIGTERM first, SIGKILL after a grace period.
"""

import configparser
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import requests

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.dirname(sys.executable)
RABBITMQ_SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server'
DEBIAN_PACKAGES = ('rabbitmq-server', 'mariadb-server')
DB_USER = 'heat'
DB_PASSWORD = 'heat-distributed'


class HarnessError(RuntimeError):
    pass


def free_port() -> int:
    with contextlib.closing(socket.socket()) as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def listening_socket() -> socket.socket:
    """A socket listening on a free port of 127.0.0.1, for a child to use.

    Held from the moment its port is chosen: no outgoing connection of
    the services starting meanwhile can take the port as its own.
    """
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(('127.0.0.1', 0))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def wait_for(predicate, timeout, what, interval=0.3):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
        except Exception as exc:  # noqa: the service is not up yet
            last = exc
        else:
            if last:
                return last
        time.sleep(interval)
    raise HarnessError('timed out after %ss waiting for %s (last: %r)'
                       % (timeout, what, last))


# -- what must be installed ---------------------------------------------------

def _which_mariadbd():
    return shutil.which('mariadbd') or shutil.which(
        'mariadbd', path='/usr/sbin:/usr/bin')


def missing_packages() -> list:
    missing = []
    if not os.path.exists(RABBITMQ_SERVER) or not shutil.which(
            'epmd', path='/usr/bin:/usr/lib/erlang/bin'):
        missing.append('rabbitmq-server')
    if not _which_mariadbd() or not shutil.which(
            'mariadb-install-db', path='/usr/bin:/usr/sbin'):
        missing.append('mariadb-server')
    return missing


def ensure_packages(log=print) -> None:
    """apt-get install RabbitMQ and MariaDB if they are missing (as root).

    The packages' maintainer scripts may try to start the services; a
    policy-rc.d that exits 101 stops them for this install, we start our
    own.
    """
    missing = missing_packages()
    if missing:
        if os.geteuid() != 0:
            raise HarnessError('missing Debian packages %s and not root: '
                               'apt-get install %s' % (missing,
                                                       ' '.join(missing)))
        log('installing %s with apt-get' % ' '.join(missing))
        env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
        policy = '/usr/sbin/policy-rc.d'
        added_policy = not os.path.exists(policy)
        if added_policy:
            with open(policy, 'w') as out:
                out.write('#!/bin/sh\nexit 101\n')
            os.chmod(policy, 0o755)
        try:
            subprocess.run(['apt-get', 'update', '-q'], check=True, env=env,
                           stdout=subprocess.DEVNULL)
            subprocess.run(['apt-get', 'install', '-y', '-q',
                            '--no-install-recommends'] + missing,
                           check=True, env=env, stdout=subprocess.DEVNULL)
        finally:
            if added_policy:
                os.unlink(policy)
    try:
        import pymysql  # noqa: F401
    except ImportError:
        log('installing PyMySQL into %s' % sys.prefix)
        subprocess.run([sys.executable, '-m', 'pip', 'install', '-q',
                        'PyMySQL'], check=True)


# -- processes ----------------------------------------------------------------

class Process:
    """A process we started, in a session (process group) of its own."""

    def __init__(self, name, argv, log_path, env=None, cwd=None,
                 pass_fds=()):
        self.name = name
        self.argv = list(argv)
        self.log_path = log_path
        self.env = env
        self.cwd = cwd
        self.pass_fds = tuple(pass_fds)
        self.proc = None

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def start(self):
        with open(self.log_path, 'ab') as out:
            self.proc = subprocess.Popen(
                self.argv, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, env=self.env, cwd=self.cwd,
                start_new_session=True, pass_fds=self.pass_fds)
        return self

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def group_pids(self) -> list:
        """Every process left in our process group (children too)."""
        if self.proc is None:
            return []
        found = []
        for entry in os.listdir('/proc'):
            if not entry.isdigit():
                continue
            try:
                with open('/proc/%s/stat' % entry) as stat:
                    fields = stat.read().rsplit(')', 1)[1].split()
            except OSError:
                continue
            # fields: state ppid pgrp ...; zombies have left already.
            if int(fields[2]) == self.proc.pid and fields[0] != 'Z':
                found.append(int(entry))
        return found

    def _signal_group(self, sig):
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            pass

    def kill(self):
        """kill -9, the whole process group."""
        if self.proc is None:
            return None
        self._signal_group(signal.SIGKILL)
        code = self.proc.wait()
        wait_for(lambda: not self.group_pids(), 30,
                 '%s (pgid %d) gone' % (self.name, self.proc.pid))
        return code

    def terminate(self):
        if self.proc is not None:
            self._signal_group(signal.SIGTERM)

    def gone(self) -> bool:
        return self.proc is None or (self.proc.poll() is not None and
                                     not self.group_pids())

    def stop(self, timeout=30):
        """SIGTERM to the group, then SIGKILL to what is left."""
        stop_all([self], timeout)
        return self.proc.returncode if self.proc else None

    def output(self, last=4000):
        try:
            with open(self.log_path, errors='replace') as log:
                return log.read()[-last:]
        except OSError as exc:
            return '(no output: %s)' % exc


def stop_all(procs, timeout=30):
    """Stop processes together: SIGTERM to each group, SIGKILL after."""
    procs = [p for p in procs if p is not None and p.proc is not None]
    for proc in procs:
        proc.terminate()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not all(p.gone() for p in procs):
        time.sleep(0.2)
    for proc in procs:
        if not proc.gone():
            proc._signal_group(signal.SIGKILL)
        proc.proc.wait()
    with contextlib.suppress(HarnessError):
        wait_for(lambda: all(not p.group_pids() for p in procs), 10,
                 'every process group gone')


# -- RabbitMQ -----------------------------------------------------------------

class RabbitMQ:
    """rabbitmq-server run as root from its own directory, with its epmd."""

    def __init__(self, base_dir):
        self.dir = os.path.join(base_dir, 'rabbitmq')
        os.makedirs(self.dir)
        self.port = free_port()
        self.dist_port = free_port()
        self.epmd_port = free_port()
        self.node = 'rabbit-%s@localhost' % uuid.uuid4().hex[:8]
        self.epmd = None
        self.server = None

    def url(self, vhost='/'):
        return 'rabbit://guest:guest@127.0.0.1:%d/%s' % (
            self.port, '' if vhost == '/' else vhost)

    def ctl(self, *args):
        result = subprocess.run(
            [os.path.join(os.path.dirname(RABBITMQ_SERVER), 'rabbitmqctl'),
             '-n', self.node, '-q'] + list(args),
            env=self._env(), stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)
        if result.returncode:
            raise HarnessError('rabbitmqctl %s: %s'
                               % (' '.join(args), result.stdout))
        return result.stdout

    def add_vhost(self, vhost):
        """A virtual host of its own for one Heat deployment."""
        self.ctl('add_vhost', vhost)
        self.ctl('set_permissions', '-p', vhost, 'guest', '.*', '.*', '.*')
        return self.url(vhost)

    def _env(self):
        env = dict(os.environ)
        env.update({
            'HOME': self.dir,  # the Erlang cookie
            'ERL_EPMD_PORT': str(self.epmd_port),
            'ERL_EPMD_ADDRESS': '127.0.0.1',
            'RABBITMQ_NODENAME': self.node,
            'RABBITMQ_NODE_IP_ADDRESS': '127.0.0.1',
            'RABBITMQ_NODE_PORT': str(self.port),
            'RABBITMQ_DIST_PORT': str(self.dist_port),
            'RABBITMQ_MNESIA_BASE': os.path.join(self.dir, 'mnesia'),
            'RABBITMQ_LOG_BASE': os.path.join(self.dir, 'log'),
            'RABBITMQ_LOGS': '-',
            'RABBITMQ_PID_FILE': os.path.join(self.dir, 'rabbitmq.pid'),
            'RABBITMQ_CONFIG_FILE': os.path.join(self.dir, 'rabbitmq'),
            'RABBITMQ_ADVANCED_CONFIG_FILE': os.path.join(
                self.dir, 'advanced.config'),
            'RABBITMQ_CONF_ENV_FILE': os.path.join(self.dir, 'env.conf'),
            'RABBITMQ_ENABLED_PLUGINS_FILE': os.path.join(
                self.dir, 'enabled_plugins'),
            # The Erlang distribution port on loopback only, too.
            'RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS':
                '-kernel inet_dist_use_interface {127,0,0,1}',
        })
        return env

    def start(self, timeout=90):
        files = {
            'rabbitmq.conf': 'listeners.tcp.default = 127.0.0.1:%d\n'
                             'loopback_users.guest = true\n' % self.port,
            'advanced.config': '[].\n',
            'env.conf': '',
            'enabled_plugins': '[].\n',
        }
        for name, text in files.items():
            with open(os.path.join(self.dir, name), 'w') as out:
                out.write(text)
        self.epmd = Process('epmd', ['epmd', '-port', str(self.epmd_port)],
                            os.path.join(self.dir, 'epmd.out'),
                            env=self._env()).start()
        return self.start_server(timeout)

    def start_server(self, timeout=90):
        """rabbitmq-server alone: again after :meth:`stop_server` too.

        The same node name, port and Mnesia directory: the broker an
        operator restarts (its users and virtual hosts are kept).
        """
        self.server = Process('rabbitmq', [RABBITMQ_SERVER],
                              os.path.join(self.dir, 'rabbitmq.out'),
                              env=self._env(), cwd=self.dir).start()
        wait_for(self._ready, timeout, 'RabbitMQ on port %d' % self.port)
        return self

    def stop_server(self):
        """Stop rabbitmq-server (SIGTERM), keeping epmd and the data."""
        stop_all([self.server])

    def _ready(self):
        if not self.server.alive():
            raise HarnessError('rabbitmq-server exited:\n%s'
                               % self.server.output())
        import kombu
        conn = kombu.Connection('amqp://guest:guest@127.0.0.1:%d//'
                                % self.port, connect_timeout=2)
        try:
            conn.connect()
        finally:
            conn.release()
        return True

    def stop(self):
        stop_all([self.server])
        stop_all([self.epmd])


# -- MariaDB ------------------------------------------------------------------

class MariaDB:
    """mariadbd on a data directory of its own, TCP on 127.0.0.1 only."""

    def __init__(self, base_dir):
        self.dir = os.path.join(base_dir, 'mariadb')
        self.data = os.path.join(self.dir, 'data')
        os.makedirs(self.dir)
        self.port = free_port()
        self.socket = os.path.join(self.dir, 'mysqld.sock')
        self.server = None

    def url(self, database):
        return 'mysql+pymysql://%s:%s@127.0.0.1:%d/%s' % (
            DB_USER, DB_PASSWORD, self.port, database)

    def start(self, timeout=60):
        subprocess.run(
            ['mariadb-install-db', '--no-defaults', '--datadir=' + self.data,
             '--user=root', '--auth-root-authentication-method=normal',
             '--skip-test-db'],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        return self.start_server(timeout)

    def start_server(self, timeout=60):
        """mariadbd on the data directory: again after :meth:`stop` too."""
        self.server = Process('mariadb', [
            _which_mariadbd(), '--no-defaults', '--datadir=' + self.data,
            '--user=root', '--bind-address=127.0.0.1',
            '--port=%d' % self.port, '--socket=' + self.socket,
            '--pid-file=' + os.path.join(self.dir, 'mariadb.pid'),
            '--skip-name-resolve', '--max-connections=1000',
            # What Debian's packaged configuration sets (which
            # --no-defaults skips): databases are created utf8mb4.
            '--character-set-server=utf8mb4',
            '--collation-server=utf8mb4_general_ci',
            '--innodb-flush-log-at-trx-commit=2',
            '--innodb-buffer-pool-size=256M',
            '--log-error=' + os.path.join(self.dir, 'error.log'),
        ], os.path.join(self.dir, 'mariadb.out')).start()
        wait_for(self._ready, timeout, 'MariaDB on port %d' % self.port)
        return self

    def connect(self, **kwargs):
        import pymysql
        return pymysql.connect(host='127.0.0.1', port=self.port,
                               user='root', password='', autocommit=True,
                               connect_timeout=2, **kwargs)

    def _ready(self):
        if not self.server.alive():
            raise HarnessError('mariadbd exited:\n%s\n%s' % (
                self.server.output(), Process(
                    'log', [], os.path.join(self.dir, 'error.log')).output()))
        self.connect().close()
        return True

    def create_database(self, name):
        conn = self.connect()
        try:
            with conn.cursor() as cur:
                cur.execute('CREATE DATABASE `%s`' % name)
                for host in ('127.0.0.1', 'localhost'):
                    cur.execute("CREATE USER IF NOT EXISTS '%s'@'%s' "
                                "IDENTIFIED BY '%s'"
                                % (DB_USER, host, DB_PASSWORD))
                    cur.execute("GRANT ALL PRIVILEGES ON `%s`.* TO '%s'@'%s'"
                                % (name, DB_USER, host))
        finally:
            conn.close()
        return self.url(name)

    def query(self, database, sql, args=None):
        conn = self.connect(database=database)
        try:
            with conn.cursor() as cur:
                cur.execute(sql, args)
                return cur.fetchall()
        finally:
            conn.close()

    def stop(self):
        if self.server is not None:
            self.server.stop()


# -- Heat ---------------------------------------------------------------------

def write_paste_file(directory, keystone=False):
    """Heat's api-paste.ini plus our filter and flavors; the flavor used.

    ``noauth_breakpoint``, or with Keystone ``default_breakpoint`` (and,
    for the policy tests only, Heat's pipeline without our filter under
    ``/stock``).
    """
    from heat_breakpoint.server import config
    path = config.write_paste_file(directory)
    if not keystone:
        return path, config.FLAVOR
    from tests import policy_roles
    paste = policy_roles.read_paste(path)
    policy_roles.serve_stock(paste, config.KEYSTONE_FLAVOR)
    with open(path, 'w') as out:
        paste.write(out)
    return path, config.KEYSTONE_FLAVOR


def write_conf(path, sections):
    conf = configparser.RawConfigParser()
    for section, values in sections.items():
        conf[section] = values
    with open(path, 'w') as out:
        conf.write(out)
    return path


class HeatCluster:
    """heat-api and heat-engines sharing one heat.conf, broker and DB."""

    def __init__(self, base_dir, name, rabbit, mariadb, engines=2,
                 breakpoint_options=None, vhost='/', options=None,
                 keystone=None, engine_env=None):
        self.name = name
        # A real Keystone (:class:`identity.Keystone`), or noauth.
        self.keystone = keystone
        # More of the engines' environment (test-only Heat plugins read it).
        self.engine_env = dict(engine_env or {})
        self.dir = os.path.join(base_dir, name)
        os.makedirs(self.dir)
        self.rabbit = rabbit
        self.mariadb = mariadb
        self.database = name.replace('-', '_')
        self.initial_engines = engines
        self.breakpoint_options = dict(breakpoint_options or {})
        self.vhost = vhost
        # More of heat.conf: {section: {option: value}}.
        self.options = {k: dict(v) for k, v in (options or {}).items()}
        self.api = None
        self.api_port = free_port()
        self.engines = {}  # name -> Process, in start order
        self.stopped_engines = {}
        self.stopped_apis = []
        self._engine_count = 0
        self.conf = None

    # -- config --------------------------------------------------------------

    def write_config(self):
        connection = self.mariadb.create_database(self.database)
        transport_url = (self.rabbit.url() if self.vhost == '/' else
                         self.rabbit.add_vhost(self.vhost))
        paste, flavor = write_paste_file(self.dir,
                                         keystone=self.keystone is not None)
        sections = {
            'DEFAULT': {
                'transport_url': transport_url,
                'convergence_engine': 'true',
                'num_engine_workers': '1',
                # No Keystone: store the request's credentials.
                'deferred_auth_method': 'password',
                'use_stderr': 'false',
                'debug': 'false',
            },
            'database': {'connection': connection},
            'paste_deploy': {'api_paste_config': paste, 'flavor': flavor},
            'oslo_messaging_notifications': {'driver': 'log'},
            # noauth gives every request the single role 'admin'.
            'oslo_policy': {'enforce_new_defaults': 'false',
                            'enforce_scope': 'false'},
            'oslo_concurrency': {'lock_path': os.path.join(self.dir,
                                                           'locks')},
        }
        if self.keystone is not None:
            # As a cloud with Keystone configures Heat (the README's).
            from heat_breakpoint.server import config
            for section, values in config.keystone_options(
                    self.keystone.auth_options()).items():
                sections.setdefault(section, {}).update(values)
        if self.breakpoint_options:
            sections['breakpoint'] = {
                key: str(value).lower() if isinstance(value, bool)
                else str(value)
                for key, value in self.breakpoint_options.items()}
        for section, values in self.options.items():
            sections.setdefault(section, {}).update(values)
        self.conf = write_conf(os.path.join(self.dir, 'heat.conf'),
                               sections)
        return self.conf

    def db_sync(self):
        result = subprocess.run(
            [os.path.join(BIN, 'heat-manage'), '--config-file', self.conf,
             'db_sync'], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True)
        if result.returncode:
            raise HarnessError('heat-manage db_sync failed:\n%s'
                               % result.stdout[-4000:])
        # Our tables, as an operator makes them: the migration command.
        result = subprocess.run(
            [os.path.join(BIN, 'heat-breakpoint-manage'), '--config-file',
             self.conf, 'db_sync'], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)
        if result.returncode:
            raise HarnessError('heat-breakpoint-manage db_sync failed:\n%s'
                               % result.stdout[-4000:])

    # -- processes -----------------------------------------------------------

    def start(self):
        self.write_config()
        self.db_sync()
        for _ in range(self.initial_engines):
            self.start_engine(wait=False)
        for name in list(self.engines):
            self.wait_engine(name)
        self.start_api()
        return self

    def start_engine(self, wait=True):
        """One more heat-engine: its own host name and log file."""
        self._engine_count += 1
        name = 'engine-%d' % self._engine_count
        own = write_conf(os.path.join(self.dir, '%s.conf' % name), {
            'DEFAULT': {'host': '%s-%s' % (self.name, name),
                        'log_file': self.engine_log(name)}})
        proc = Process(name, [os.path.join(BIN, 'heat-engine'),
                              '--config-file', self.conf,
                              '--config-file', own],
                       os.path.join(self.dir, '%s.out' % name),
                       env=dict(os.environ, **self.engine_env))
        self.engines[name] = proc.start()
        if wait:
            self.wait_engine(name)
        return name

    def engine_log(self, name):
        return os.path.join(self.dir, '%s.log' % name)

    def wait_engine(self, name, timeout=90):
        """Until the engine's worker registered itself in the database."""
        proc = self.engines[name]
        host = '%s-%s' % (self.name, name)

        def registered():
            if not proc.alive():
                raise HarnessError('%s exited:\n%s\n%s' % (
                    name, proc.output(), self.read_log(name)[-4000:]))
            return self.mariadb.query(
                self.database, "SELECT engine_id FROM service WHERE "
                "host = %s AND deleted_at IS NULL", (host,))
        wait_for(registered, timeout, '%s registered' % name)
        # Fail now, not in a test, if the plugin did not install itself.
        log = self.read_log(name)
        if 'heat-breakpoint is DISABLED' in log:
            raise HarnessError('%s: %s' % (name, log[-4000:]))

    def start_api(self, timeout=90):
        self.api = Process('heat-api', [
            sys.executable, os.path.join(HERE, 'api_server.py'),
            '--port', str(self.api_port), '--',
            '--config-file', self.conf,
            '--log-file', os.path.join(self.dir, 'api.log')],
            os.path.join(self.dir, 'api.out')).start()

        def answers():
            if not self.api.alive():
                raise HarnessError('heat-api exited:\n%s'
                                   % self.api.output())
            if self.keystone is not None:
                return list(self.client().stacks.list(limit=1)) is not None
            return requests.get(self.endpoint() + '/stacks',
                                timeout=5).status_code == 200
        wait_for(answers, timeout, 'heat-api on port %d' % self.api_port)

    def stop_api(self):
        """Stop heat-api (SIGTERM); the engines go on."""
        stop_all([self.api])
        self.stopped_apis.append(self.api)
        self.api = None

    def restart_api(self, timeout=90):
        """heat-api stopped and started again, on the same port."""
        if self.api is not None:
            self.stop_api()
        self.start_api(timeout)

    def kill_engine(self, name):
        """kill -9 every process of one heat-engine."""
        proc = self.engines.pop(name)
        code = proc.kill()
        self.stopped_engines[name] = proc
        return code

    def stop(self):
        stop_all(([self.api] if self.api else []) +
                 list(self.engines.values()))
        self.stopped_engines.update(self.engines)
        self.engines = {}

    def all_processes(self):
        return ([self.api] if self.api else []) + list(
            self.engines.values()) + list(self.stopped_engines.values()) + \
            self.stopped_apis

    # -- clients and logs ----------------------------------------------------

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self.api_port

    def endpoint(self, project='admin'):
        if self.keystone is not None:
            project = self.keystone.ids.get(project, project)
        return '%s/v1/%s' % (self.url, project)

    #: Who calls Heat when a test names no one, with Keystone.
    USER = 'alpha-member'

    @property
    def env(self):
        """``OS_*`` of the ``openstack`` CLI (Keystone: :attr:`USER`)."""
        if self.keystone is not None:
            return self.keystone.env(self.USER)
        return {'OS_AUTH_TYPE': 'none', 'OS_ENDPOINT': self.endpoint()}

    def client(self, project='admin'):
        """A heatclient v1 client (noauth: the URL names the project).

        With Keystone: as :attr:`USER` (see :meth:`client_as`).
        """
        from heatclient import client as heat_client
        if self.keystone is not None:
            return self.client_as(self.USER)
        from keystoneauth1 import noauth
        from keystoneauth1 import session
        sess = session.Session(auth=noauth.NoAuth())
        return heat_client.Client('1', session=sess,
                                  endpoint_override=self.endpoint(project))

    def client_as(self, user, project=None):
        """A heatclient of one of Keystone's users: Heat from its catalog."""
        from heatclient import client as heat_client

        from tests.distributed import identity
        return heat_client.Client(
            '1', session=self.keystone.session(user, project),
            service_type='orchestration', interface='public',
            region_name=identity.REGION)

    def read_log(self, name):
        try:
            with open(self.engine_log(name), errors='replace') as log:
                return log.read()
        except OSError:
            return ''

    def all_engine_names(self):
        return sorted(set(self.engines) | set(self.stopped_engines),
                      key=lambda n: int(n.split('-')[1]))

    def engines_logging(self, needle):
        """The engines whose log has ``needle``, by name."""
        return [name for name in self.all_engine_names()
                if needle in self.read_log(name)]

    def log_lines(self, needle, names=None):
        found = []
        for name in names or self.all_engine_names():
            found += ['%s: %s' % (name, line) for line in
                      self.read_log(name).splitlines() if needle in line]
        return found

    # What an engine logs when a resource check dies: the stack will not
    # go on, waiting for it is pointless.
    CHECK_FAILURES = ('Unhandled exception in check_resource',
                      'Unexpected exception in resource check')

    def log_mark(self):
        """Where each engine log ends now (for :meth:`failures_since`)."""
        mark = {}
        for name in self.all_engine_names():
            try:
                mark[name] = os.path.getsize(self.engine_log(name))
            except OSError:
                mark[name] = 0
        return mark

    def failures_since(self, mark):
        """Lines of failed resource checks logged after ``mark``."""
        found = []
        for name in self.all_engine_names():
            try:
                with open(self.engine_log(name), 'rb') as log:
                    log.seek(mark.get(name, 0))
                    text = log.read().decode('utf-8', 'replace')
            except OSError:
                continue
            found += ['%s: %s' % (name, line) for line in text.splitlines()
                      if any(f in line for f in self.CHECK_FAILURES)]
        return found

    def errors(self, last=30):
        """ERROR/CRITICAL lines of every engine log, for failure messages."""
        lines = []
        for name in self.all_engine_names():
            lines += ['%s: %s' % (name, line) for line in
                      self.read_log(name).splitlines()
                      if ' ERROR ' in line or ' CRITICAL ' in line]
        return '\n'.join(lines[-last:])


class Deployment:
    """Broker + database + Heat clusters, started and stopped together.

    And a Keystone (:mod:`identity`), started beside the broker and the
    database when :meth:`start_keystone` is called, for the clusters that
    ask for it.
    """

    def __init__(self, base_dir=None):
        self.base_dir = base_dir or tempfile.mkdtemp(
            prefix='heat-breakpoint-distributed-')
        self.rabbit = None
        self.mariadb = None
        self.keystone = None
        self._keystone_start = None
        self.keystone_seconds = None
        self.clusters = []
        self.stop_seconds = 0.0

    def start_services(self):
        self.rabbit = RabbitMQ(self.base_dir)
        self.mariadb = MariaDB(self.base_dir)
        self.mariadb.start()
        self.rabbit.start()
        return self

    def start_keystone(self):
        """Start Keystone in the background (see :meth:`keystone_ready`)."""
        import threading

        from tests.distributed import identity
        self.keystone = identity.Keystone(self.base_dir)
        outcome = {}

        def start():
            started = time.monotonic()
            try:
                self.keystone.start().populate()
            except BaseException as exc:  # noqa: raised where it is used
                outcome['error'] = exc
            self.keystone_seconds = time.monotonic() - started
        self._keystone_start = threading.Thread(target=start, daemon=True)
        self._keystone_start.start()
        self._keystone_outcome = outcome
        return self

    def keystone_ready(self, timeout=300):
        """The started Keystone, populated; its error if it failed."""
        if self._keystone_start is None:
            self.start_keystone()
        self._keystone_start.join(timeout)
        if self._keystone_start.is_alive():
            raise HarnessError('Keystone not ready after %d s' % timeout)
        if 'error' in self._keystone_outcome:
            raise self._keystone_outcome['error']
        return self.keystone

    def add_cluster(self, name, **kwargs):
        cluster = HeatCluster(self.base_dir, name, self.rabbit,
                              self.mariadb, **kwargs)
        self.clusters.append(cluster)
        return cluster

    def processes(self):
        procs = []
        for cluster in self.clusters:
            procs += cluster.all_processes()
        for service in (self.rabbit, self.mariadb, self.keystone):
            if service is not None:
                procs += [p for p in (getattr(service, 'server', None),
                                      getattr(service, 'epmd', None)) if p]
        return procs

    def stop(self):
        started = time.monotonic()
        heat = []
        for cluster in self.clusters:
            heat += ([cluster.api] if cluster.api else []) + list(
                cluster.engines.values())
        stop_all(heat)
        for cluster in self.clusters:
            cluster.stop()
        if self._keystone_start is not None:
            self._keystone_start.join(120)
        stop_all([getattr(self.rabbit, 'server', None),
                  getattr(self.mariadb, 'server', None),
                  getattr(self.keystone, 'server', None)])
        stop_all([getattr(self.rabbit, 'epmd', None)])
        self.stop_seconds = time.monotonic() - started
        left = {p.name: p.group_pids() for p in self.processes()
                if p.group_pids()}
        if left:
            raise HarnessError('processes left running: %r' % left)
