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
"""TEST ONLY: a paste filter that gives a request the roles its token names.

Heat's ``noauth`` filter makes every caller ``admin``, so policy cannot be
tested behind it. Placed right after ``noauth`` (the local server's
pipeline, see ``tests/functional/test_policy.py``), this filter reads the
token the clients send as Keystone's would be read, ``<roles>@<project>``
(``reader@alpha``, ``member@beta``, ``@alpha`` for no role at all), and
sets the identity headers Heat's context filter builds the request
context from. As Keystone's default roles do, ``admin`` implies
``member`` and ``member`` implies ``reader``; a request without such a
token keeps the identity ``noauth`` gave it (with the implied roles).
:func:`write_rbac_config` writes the local server's configuration with
this filter and secure RBAC on (the policy tests and
``benchmarks/filter_cost.py`` use it). Never deploy this.
"""

import configparser
import os

from heat_breakpoint.server import config as local_config

TOKEN = 'HTTP_X_AUTH_TOKEN'
# Where the same server serves Heat's stock pipeline, without our filter.
STOCK_PREFIX = '/stock'
ROLES = 'HTTP_X_ROLES'
# Keystone's default role hierarchy (``keystone-manage bootstrap``).
IMPLIES = {'admin': 'member', 'member': 'reader'}


def with_implied(roles):
    """The roles, and the ones they imply, in Keystone's order."""
    found = []
    for role in roles:
        while role and role not in found:
            found.append(role)
            role = IMPLIES.get(role)
    return found


def identity(token: str):
    """``(roles, project)`` of a test token, or None if it is not one."""
    if not token or '@' not in token:
        return None
    roles, _sep, project = token.rpartition('@')
    if not project:
        return None
    return [r for r in roles.split(',') if r], project


class TestRoles(object):
    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        found = identity(environ.get(TOKEN, ''))
        if found is None:
            roles = environ.get(ROLES, '').split(',')
            environ[ROLES] = ','.join(with_implied(r for r in roles if r))
        else:
            roles, project = found
            user = '%s-%s' % ('-'.join(roles) or 'norole', project)
            environ.update({
                ROLES: ','.join(with_implied(roles)),
                'HTTP_X_PROJECT_ID': project,
                'HTTP_X_PROJECT_NAME': project,
                'HTTP_X_USER_ID': user,
                'HTTP_X_USER_NAME': user,
                'HTTP_X_AUTH_USER': user,
            })
        return self.app(environ, start_response)


def filter_factory(global_conf, **local_conf):
    return TestRoles


def serve_stock(paste, flavor):
    """Heat's stock pipeline of ``flavor`` (without our filter) at /stock.

    ``paste``: a parsed api-paste.ini, changed in place.
    """
    ours = paste.get('composite:api', flavor).split()
    stock = [stage for stage in ours if stage != local_config.FILTER]
    paste['pipeline:api-stock'] = {'pipeline': ' '.join(stock)}
    for section in paste.sections():
        if section.startswith('composite:heat-api') and \
                not section.startswith('composite:heat-api-cfn'):
            paste.set(section, STOCK_PREFIX, 'api-stock')


def read_paste(path):
    """A paste file (or heat.conf) as Heat reads it: names keep their case."""
    paste = configparser.RawConfigParser()
    paste.optionxform = str
    paste.read(path)
    return paste


def write_rbac_config(directory):
    """The paste file (test filter after noauth, /stock) and heat.conf."""
    paste = read_paste(local_config.write_paste_file(directory))
    ours = paste.get('composite:api', local_config.FLAVOR).split()
    ours.insert(ours.index('noauth') + 1, 'testroles')
    paste.set('composite:api', local_config.FLAVOR, ' '.join(ours))
    paste['filter:testroles'] = {
        'paste.filter_factory': 'tests.policy_roles:filter_factory'}
    serve_stock(paste, local_config.FLAVOR)
    paste_path = os.path.join(directory, 'rbac-api-paste.ini')
    with open(paste_path, 'w') as out:
        paste.write(out)
    conf_path = os.path.join(directory, 'rbac.conf')
    with open(conf_path, 'w') as out:
        out.write('[oslo_policy]\nenforce_new_defaults = true\n'
                  'enforce_scope = true\n'
                  '[paste_deploy]\napi_paste_config = %s\n' % paste_path)
    return conf_path
