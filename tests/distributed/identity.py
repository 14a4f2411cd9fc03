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
"""A real Keystone for the distributed tier, and the people who use it.

Keystone from PyPI, of the release series of the Heat under test
(:data:`SERIES`), as a small cloud runs it: SQLite, fernet tokens,
Keystone's WSGI application under gunicorn (``keystone_wsgi.py`` beside
this file), made by ``keystone-manage db_sync``, ``fernet_setup``,
``credential_setup`` and ``bootstrap`` (in one process:
``keystone_manage.py``). Its tokens live :data:`TOKEN_SECONDS`, so that a
test can outlive one.

:meth:`Keystone.populate` then makes, through Keystone's API as an
operator would: Heat's service user and its stack user domain and the
people of the tests (:data:`USERS`):
in project ``alpha`` a member (who creates the stacks), another member,
a reader, an admin, a stack user and a user with a role Heat does not
know; in project ``beta`` a member.
"""

import os
import subprocess
import sys

from tests.distributed import harness

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.dirname(sys.executable)
#: Keystone's release series for each Heat's (the same OpenStack cycle):
#: openstack-heat major version -> pip requirement.
SERIES = {
    24: 'keystone>=27.0.0,<28.0.0',  # 2025.1
    25: 'keystone>=28.0.0,<29.0.0',  # 2025.2
    26: 'keystone>=29.0.0,<30.0.0',  # 2026.1
    27: 'keystone>=30.0.0,<31.0.0',  # 2026.2
}
GUNICORN = 'gunicorn>=23'
#: How long a token lives. Short, so that a test can outlive one; a
#: client with a password (keystoneauth) asks for a new one when needed.
TOKEN_SECONDS = 40
PASSWORD = 'keystone-distributed'
REGION = 'RegionOne'
SERVICE_PROJECT = 'service'
HEAT_USER = 'heat'
STACK_DOMAIN = 'heat'
STACK_DOMAIN_ADMIN = 'heat_domain_admin'
#: A role Keystone has and Heat's policy does not know.
UNKNOWN_ROLE = 'observer'
PROJECTS = ('alpha', 'beta')
#: user name -> (project, role): the people of the tests.
USERS = {
    'alpha-member': ('alpha', 'member'),
    'alpha-other': ('alpha', 'member'),
    'alpha-reader': ('alpha', 'reader'),
    'alpha-admin': ('alpha', 'admin'),
    'alpha-stack-user': ('alpha', 'heat_stack_user'),
    'alpha-observer': ('alpha', UNKNOWN_ROLE),
    'beta-member': ('beta', 'member'),
}


def requirement() -> str:
    """The Keystone of the installed Heat's release series."""
    from importlib import metadata
    version = metadata.version('openstack-heat')
    major = int(version.split('.')[0])
    if major not in SERIES:
        raise harness.HarnessError(
            'no Keystone series known for openstack-heat %s (known: %s)'
            % (version, ', '.join(map(str, sorted(SERIES)))))
    return SERIES[major]


def missing() -> list:
    """The pip requirements of this tier that are not installed."""
    from importlib import metadata
    needed = []
    try:
        metadata.version('keystone')
    except metadata.PackageNotFoundError:
        needed.append(requirement())
    try:
        metadata.version('gunicorn')
    except metadata.PackageNotFoundError:
        needed.append(GUNICORN)
    return needed


def ensure_installed(log=print) -> None:
    needed = missing()
    if needed:
        log('installing %s into %s' % (' '.join(needed), sys.prefix))
        subprocess.run([sys.executable, '-m', 'pip', 'install', '-q'] +
                       needed, check=True)


class Keystone:
    """keystone under gunicorn on 127.0.0.1, its state in one directory."""

    def __init__(self, base_dir, token_seconds=TOKEN_SECONDS):
        self.dir = os.path.join(base_dir, 'identity')
        os.makedirs(self.dir)
        # Chosen and held now: the catalog names it (bootstrap), and
        # gunicorn serves on this very socket (``fd://``), so the broker
        # and the database starting meanwhile cannot take the port.
        self.socket = harness.listening_socket()
        self.port = self.socket.getsockname()[1]
        self.token_seconds = token_seconds
        self.conf = os.path.join(self.dir, 'keystone.conf')
        self.log = os.path.join(self.dir, 'keystone.log')
        self.server = None
        self.ids = {}  # name -> id of projects, users, domains
        self._plugins = {}  # (user, scope) -> its password plugin

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self.port

    @property
    def v3(self):
        return self.url + '/v3'

    # -- start and stop ------------------------------------------------------

    def write_config(self):
        for name in ('fernet-keys', 'credential-keys'):
            os.makedirs(os.path.join(self.dir, name), mode=0o700)
        harness.write_conf(self.conf, {
            'DEFAULT': {'log_file': self.log, 'use_stderr': 'false'},
            'database': {'connection': 'sqlite:///%s' % os.path.join(
                self.dir, 'keystone.sqlite')},
            'token': {'provider': 'fernet',
                      'expiration': str(self.token_seconds)},
            'fernet_tokens': {'key_repository': os.path.join(
                self.dir, 'fernet-keys')},
            'credential': {'key_repository': os.path.join(
                self.dir, 'credential-keys')},
            # Hashing passwords is most of a token's cost; the tests ask
            # for many.
            'identity': {'password_hash_rounds': '4'},
            'oslo_policy': {'enforce_new_defaults': 'true',
                            'enforce_scope': 'true'},
            # Heat's reauthentication_auth_method = trusts: a stack's work
            # on its trust makes remote stacks, with trusts of their own.
            'trust': {'allow_redelegation': 'true'},
            # As a cloud caches (there in memcached): per worker here.
            'cache': {'enabled': 'true',
                      'backend': 'dogpile.cache.memory'},
        })

    def manage(self):
        """db_sync, fernet_setup, credential_setup, bootstrap."""
        user = ['--keystone-user', str(os.getuid()),
                '--keystone-group', str(os.getgid())]
        commands = [
            'db_sync',
            ' '.join(['fernet_setup'] + user),
            ' '.join(['credential_setup'] + user),
            ' '.join(['bootstrap', '--bootstrap-password', PASSWORD,
                      '--bootstrap-region-id', REGION,
                      '--bootstrap-public-url', self.v3,
                      '--bootstrap-internal-url', self.v3]),
        ]
        result = subprocess.run(
            [sys.executable, os.path.join(HERE, 'keystone_manage.py'),
             self.conf] + commands, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)
        if result.returncode or result.stdout.count(': done') != 4:
            raise harness.HarnessError('keystone-manage failed:\n%s\n%s' % (
                result.stdout[-2000:], self.output()))

    def start(self, timeout=90):
        self.write_config()
        self.manage()
        env = dict(os.environ, OS_KEYSTONE_CONFIG_FILES=self.conf)
        self.server = harness.Process('keystone', [
            os.path.join(BIN, 'gunicorn'), '--bind',
            'fd://%d' % self.socket.fileno(), '--workers', '2',
            '--worker-class', 'gthread', '--threads', '4', '--preload',
            '--chdir', HERE, '--access-logfile', '-',
            'keystone_wsgi:application'],
            os.path.join(self.dir, 'gunicorn.out'), env=env,
            pass_fds=[self.socket.fileno()]).start()

        def answers():
            import requests
            if not self.server.alive():
                raise harness.HarnessError('keystone exited:\n%s\n%s' % (
                    self.server.output(), self.output()))
            return requests.get(self.v3, timeout=5).status_code == 200
        harness.wait_for(answers, timeout, 'Keystone on port %d' % self.port)
        return self

    def output(self, last=4000):
        try:
            with open(self.log, errors='replace') as log:
                return log.read()[-last:]
        except OSError as exc:
            return '(no keystone.log: %s)' % exc

    def stop(self):
        harness.stop_all([self.server])
        self.socket.close()

    # -- sessions ------------------------------------------------------------

    def auth(self, user, project=None, **scope):
        """A keystoneauth password plugin for one of the users.

        One per user and scope: sessions share its token, renewed a third
        of its life after it was issued (keystoneauth renews a token two
        minutes before it expires, here before each request: each would
        cost heat-api a validation too).
        """
        if project is None and not scope:
            project = USERS[user][0]
        if project is not None:
            scope = dict(project_name=project,
                         project_domain_name='Default')
        key = (user, tuple(sorted(scope.items())))
        if key not in self._plugins:
            domain = STACK_DOMAIN if user == STACK_DOMAIN_ADMIN else \
                'Default'
            plugin = _password_plugin(self.token_seconds)(
                auth_url=self.v3, username=user, password=PASSWORD,
                user_domain_name=domain, **scope)
            self._plugins[key] = plugin
        return self._plugins[key]

    def session(self, user, project=None, **scope):
        """A keystoneauth session of ``user`` (see :meth:`auth`)."""
        from keystoneauth1 import session
        return session.Session(auth=self.auth(user, project, **scope))

    def token(self, user, project=None):
        """A new token of ``user`` (scoped to their project)."""
        from keystoneauth1.identity import v3
        from keystoneauth1 import session
        return v3.Password(
            auth_url=self.v3, username=user, password=PASSWORD,
            user_domain_name='Default',
            project_name=project or USERS[user][0],
            project_domain_name='Default').get_token(session.Session())

    def admin(self):
        """python-keystoneclient as the cloud's admin (system scope)."""
        from keystoneclient.v3 import client
        return client.Client(session=self.session(
            'admin', system_scope='all'), interface='public')

    def whoami(self, token):
        """What Keystone says of a token: user, project, trust, roles."""
        import requests
        answer = requests.get(self.v3 + '/auth/tokens', headers={
            'X-Auth-Token': token, 'X-Subject-Token': token}, timeout=30)
        answer.raise_for_status()
        return describe_token(answer.json()['token'])

    def env(self, user, project=None):
        """``OS_*`` settings of the real ``openstack`` CLI, password auth."""
        return {
            'OS_AUTH_TYPE': 'password', 'OS_AUTH_URL': self.v3,
            'OS_IDENTITY_API_VERSION': '3', 'OS_USERNAME': user,
            'OS_PASSWORD': PASSWORD,
            'OS_PROJECT_NAME': project or USERS[user][0],
            'OS_USER_DOMAIN_NAME': 'Default',
            'OS_PROJECT_DOMAIN_NAME': 'Default', 'OS_REGION_NAME': REGION,
            'OS_INTERFACE': 'public',
        }

    # -- what a cloud has ----------------------------------------------------

    def populate(self):
        """Heat's accounts and the tests' people."""
        ks = self.admin()
        roles = {role.name: role for role in ks.roles.list()}
        for name in ('service', 'heat_stack_user', UNKNOWN_ROLE):
            if name not in roles:
                roles[name] = ks.roles.create(name)
        default = ks.domains.get('default')
        projects = {p.name: p for p in ks.projects.list(domain=default)}
        for name in (SERVICE_PROJECT,) + PROJECTS:
            if name not in projects:
                projects[name] = ks.projects.create(name, default)
            self.ids[name] = projects[name].id
        heat = ks.users.create(HEAT_USER, domain=default, password=PASSWORD)
        ks.roles.grant(roles['service'], user=heat,
                       project=projects[SERVICE_PROJECT])
        ks.roles.grant(roles['admin'], user=heat,
                       project=projects[SERVICE_PROJECT])
        domain = ks.domains.create(STACK_DOMAIN,
                                   description='Heat stack users')
        self.ids[STACK_DOMAIN] = domain.id
        domain_admin = ks.users.create(STACK_DOMAIN_ADMIN, domain=domain,
                                       password=PASSWORD)
        ks.roles.grant(roles['admin'], user=domain_admin, domain=domain)
        for name, (project, role) in sorted(USERS.items()):
            user = ks.users.create(name, domain=default, password=PASSWORD)
            self.ids[name] = user.id
            ks.roles.grant(roles[role], user=user, project=projects[project])
        return self

    def register_heat(self, heat_url):
        """heat-api's root as the catalog's ``orchestration`` endpoint."""
        ks = self.admin()
        service = ks.services.create('heat', type='orchestration',
                                     description='Orchestration')
        for interface in ('public', 'internal', 'admin'):
            ks.endpoints.create(service, heat_url + '/v1/$(project_id)s',
                                interface=interface, region=REGION)

    def auth_options(self):
        """Heat's account, as :func:`config.keystone_options` takes it."""
        from heat_breakpoint.server import config
        return config.KeystoneAuth(
            url=self.url, username=HEAT_USER, password=PASSWORD,
            project=SERVICE_PROJECT, region=REGION,
            stack_user_domain=STACK_DOMAIN,
            stack_domain_admin=STACK_DOMAIN_ADMIN,
            stack_domain_admin_password=PASSWORD)


def _password_plugin(token_seconds):
    from keystoneauth1.identity import v3

    class Password(v3.Password):
        MIN_TOKEN_LIFE_SECONDS = token_seconds * 2 // 3
    return Password


def describe_token(token):
    """The identity in a token's body, as the tests compare it."""
    from keystoneauth1 import access

    from tests.distributed.heat_plugins import whoami
    return whoami.describe(access.create(body={'token': token}))
