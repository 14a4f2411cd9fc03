#!/usr/bin/env python3
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
"""The web console on this machine: Keystone, the local Heat, Horizon.

    python tools/web_console.py [--port 8080] [--state-dir DIR]

Starts a Keystone from PyPI as the Keystone tier starts it (SQLite,
fernet tokens, gunicorn; ``tests/distributed/identity.py``) with its
users (a member and a reader of project ``alpha``, a member of ``beta``),
``heat-breakpoint-server --keystone`` as Heat, registered in Keystone's
catalog, and Horizon with heat-dashboard and the Breakpoints panel
(Django's ``runserver``). Prints the URL and the users, and runs until
interrupted. :class:`WebConsole` is what the browser tests start too.
"""

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from heat_breakpoint.server import fixture  # noqa: E402
from tests.distributed import identity  # noqa: E402

#: The users a reviewer logs in as: name -> (project, role).
USERS = {name: identity.USERS[name]
         for name in ('alpha-member', 'alpha-reader', 'beta-member')}
PASSWORD = identity.PASSWORD

SETTINGS = '''
"""Horizon's settings of this web console (written by web_console.py)."""
import os

import heat_dashboard
import heat_dashboard.enabled
import openstack_dashboard.enabled
from openstack_dashboard.settings import *  # noqa
from openstack_dashboard.utils import settings as settings_utils

import heatclient_ext.dashboard
import heatclient_ext.dashboard.enabled

HORIZON_CONFIG.pop('dashboards', None)
HORIZON_CONFIG.pop('default_dashboard', None)
settings_utils.update_dashboards(
    [openstack_dashboard.enabled, heat_dashboard.enabled,
     heatclient_ext.dashboard.enabled], HORIZON_CONFIG, INSTALLED_APPS)
INSTALLED_APPS = list(dict.fromkeys(INSTALLED_APPS))
DEBUG = False
ALLOWED_HOSTS = ['*']
SECRET_KEY = %(secret)r
COMPRESS_OFFLINE = False
OPENSTACK_KEYSTONE_URL = %(keystone)r
OPENSTACK_KEYSTONE_DEFAULT_DOMAIN = 'Default'
OPENSTACK_HEAT_STACK = {'enable_user_pass': False}
SESSION_ENGINE = 'django.contrib.sessions.backends.signed_cookies'
# One runserver process: its memory is cache enough (no memcached).
CACHES = {'default': {
    'BACKEND': 'django.core.cache.backends.locmem.LocMemCache'}}
_HEAT = os.path.join(os.path.dirname(heat_dashboard.__file__), 'conf')
POLICY_FILES['orchestration'] = os.path.join(_HEAT, 'heat_policy.yaml')
DEFAULT_POLICY_FILES['orchestration'] = os.path.join(
    _HEAT, 'default_policies', 'heat.yaml')
with open(os.path.join(os.path.dirname(heatclient_ext.dashboard.__file__),
                       'local_settings',
                       '_1669_breakpoints_settings.py')) as _snippet:
    exec(_snippet.read())
'''


class WebConsole:
    """Keystone, the local Heat behind it, and Horizon, in one directory."""

    keystone_password = PASSWORD

    def __init__(self, state_dir, port=None):
        self.dir = state_dir
        self.port = port or fixture.free_port()
        self.keystone = None
        self.heat = None
        self.horizon = None

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self.port

    def start(self, say=print):
        identity.ensure_installed(log=say)
        started = time.monotonic()
        self.keystone = identity.Keystone(self.dir, token_seconds=3600)
        self.keystone.start().populate()
        say('Keystone %s up (%.0f s)' % (
            self.keystone.v3, time.monotonic() - started))
        # The server takes Heat's account at Keystone from OS_*.
        os.environ.update(self.keystone.env(identity.HEAT_USER,
                                            identity.SERVICE_PROJECT))
        self.heat = fixture.LocalHeatProcess(
            os.path.join(self.dir, 'heat'),
            extra_args=['--keystone', self.keystone.url]).start(reset=True)
        self.keystone.register_heat(self.heat.url)
        say('Heat (heat-breakpoint-server --keystone) %s up (%.0f s)' % (
            self.heat.url, time.monotonic() - started))
        self.horizon = self.start_horizon()
        say('Horizon %s up (%.0f s)' % (
            self.url, time.monotonic() - started))
        return self

    def start_horizon(self, timeout=180):
        import requests
        settings_dir = os.path.join(self.dir, 'horizon')
        os.makedirs(settings_dir, exist_ok=True)
        with open(os.path.join(settings_dir, 'console_settings.py'),
                  'w') as out:
            out.write(SETTINGS % {'secret': os.urandom(24).hex(),
                                  'keystone': self.keystone.v3})
        env = dict(os.environ, DJANGO_SETTINGS_MODULE='console_settings',
                   PYTHONPATH=os.pathsep.join([settings_dir, ROOT]))
        log = open(os.path.join(self.dir, 'horizon.log'), 'ab')
        proc = subprocess.Popen(
            [sys.executable, '-m', 'django', 'runserver', '--insecure',
             '--noreload', '127.0.0.1:%d' % self.port], env=env,
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError('Horizon exited: see %s' % log.name)
            try:
                if requests.get(self.url + '/auth/login/',
                                timeout=60).status_code == 200:
                    return proc
            except requests.RequestException:
                pass
            time.sleep(1)
        os.killpg(proc.pid, signal.SIGTERM)
        raise RuntimeError('Horizon did not answer in %d s' % timeout)

    def stop(self):
        if self.horizon is not None:
            os.killpg(self.horizon.pid, signal.SIGTERM)
            self.horizon.wait(30)
            self.horizon = None
        if self.heat is not None:
            self.heat.stop()
            self.heat = None
        if self.keystone is not None:
            self.keystone.stop()
            self.keystone = None

    def banner(self):
        lines = ['', 'Web console: %s/project/breakpoints/' % self.url,
                 'Users (password %s):' % PASSWORD]
        lines += ['  %-14s %s of project %s' % (name, role, project)
                  for name, (project, role) in sorted(USERS.items())]
        lines += ['Launch a stack in Project > Orchestration > Stacks with '
                  'an environment holding "breakpoints:"; its holds are in '
                  'Project > Orchestration > Breakpoints.',
                  'Logs: %s' % self.dir, 'Ctrl-C stops it all.']
        return '\n'.join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--port', type=int, default=8080)
    parser.add_argument('--state-dir')
    args = parser.parse_args(argv)
    state = args.state_dir or tempfile.mkdtemp(prefix='web-console-')
    console = WebConsole(state, args.port)
    try:
        console.start()
        print(console.banner(), flush=True)
        # Stop it all, children too, on Ctrl-C as on a kill.
        signal.pthread_sigmask(signal.SIG_BLOCK,
                               {signal.SIGINT, signal.SIGTERM})
        signal.sigwait({signal.SIGINT, signal.SIGTERM})
    except KeyboardInterrupt:
        pass
    finally:
        console.stop()


if __name__ == '__main__':
    main()
