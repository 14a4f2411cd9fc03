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
"""The panel's view tests: Django's test client, Horizon, a real local Heat.

Skipped as a whole where Horizon or heat-dashboard is not installed
(``pip install -e .[dashboard]``). The local Heat runs without Keystone
(every caller is admin of the project its URL names), so the logged-in
user is made here as Keystone would have described them: a token, a
project, roles (a member is a reader too, as Keystone's implied roles
make it) and a catalog whose orchestration endpoint is that Heat.
"""

import datetime
import importlib.util
import os
import tempfile
import types
import uuid

import pytest

MISSING = [name for name in ('horizon', 'heat_dashboard')
           if importlib.util.find_spec(name) is None]
if MISSING:
    collect_ignore_glob = ['test_*.py']
else:
    os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'tests.dashboard.settings')

ROLES = {'member': ('member', 'reader'), 'reader': ('reader',)}


def pytest_report_header(config):
    if MISSING:
        return 'dashboard tests skipped: %s not installed' % ', '.join(
            MISSING)


@pytest.fixture(scope='session')
def django_ready():
    import django
    from django.test import utils
    django.setup()
    utils.setup_test_environment()
    yield
    utils.teardown_test_environment()


@pytest.fixture(scope='session')
def heat_server():
    from heat_breakpoint.server.fixture import LocalHeatProcess
    state_dir = tempfile.mkdtemp(prefix='heat-breakpoint-dashboard-')
    server = LocalHeatProcess(state_dir).start(reset=True)
    yield server
    server.remove()


@pytest.fixture
def project():
    return 'p%s' % uuid.uuid4().hex[:8]


@pytest.fixture
def heat(heat_server, project):
    """A heatclient in the test's own project."""
    return heat_server.client(project)


@pytest.fixture
def stack_name():
    return 'web-%s' % uuid.uuid4().hex[:8]


def make_user(heat_server, project, role):
    from openstack_auth import user
    token = types.SimpleNamespace(
        id='token-%s-%s' % (project, role),
        expires=datetime.datetime.now(datetime.timezone.utc) +
        datetime.timedelta(hours=1), project={'id': project})
    catalog = [{'type': 'orchestration', 'name': 'heat', 'endpoints': [
        {'region': 'RegionOne', 'interface': interface,
         'url': '%s/v1/%s' % (heat_server.url, project)}
        for interface in ('public', 'internal', 'admin')]}, {
        # Horizon's menu asks which Keystone API there is; none answers.
        'type': 'identity', 'name': 'keystone', 'endpoints': [
            {'region': 'RegionOne', 'interface': 'public',
             'url': 'http://127.0.0.1:9/v3'}]}]
    found = user.User(
        id='%s-%s' % (project, role), token=token, user='%s-%s' % (
            project, role), tenant_id=project, tenant_name=project,
        service_catalog=catalog,
        roles=[{'name': name} for name in ROLES[role]],
        authorized_tenants=[], enabled=True, domain_id='default',
        services_region='RegionOne')
    found._is_system_user = False
    return found


@pytest.fixture
def login(django_ready, heat_server, project, monkeypatch):
    """``login(role)``: a Django test client logged in with that role.

    In the test's project, or ``in_project``.
    """
    from django import test
    from openstack_auth import policy
    from openstack_auth import utils
    from openstack_dashboard.api import keystone
    policy.reset()
    # Horizon's menu asks Keystone which identity API it has (for the
    # Identity dashboard's panels): there is none here.
    monkeypatch.setattr(keystone, 'get_identity_api_version',
                        lambda request: (3, 0))

    def client(role='member', csrf=False, in_project=None):
        who = make_user(heat_server, in_project or project, role)
        monkeypatch.setattr(utils, 'get_user', lambda request: who)
        return test.Client(enforce_csrf_checks=csrf)
    return client
