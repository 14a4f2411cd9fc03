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
"""The configuration of the local Heat: heat.conf and the paste pipeline.

Both are generated into the state directory on every start from Heat's
own files, so the local server always runs the installed Heat as shipped,
plus our API filter in a pipeline flavor of its own: ``noauth_breakpoint``
without Keystone, ``default_breakpoint`` (Heat's ``default`` pipeline,
keystonemiddleware's ``authtoken``, plus our filter) with one. The
distributed tier configures its Heat with the same functions, and the
README's Keystone configuration is what :func:`keystone_options` writes.
"""

import configparser
import json
import os
import sys
import sysconfig
import typing

FLAVOR = 'noauth_breakpoint'
# Heat's own ``default`` pipeline (Keystone's authtoken) plus our filter.
KEYSTONE_FLAVOR = 'default_breakpoint'
FILTER = 'breakpoint'
FILTER_FACTORY = 'heat_breakpoint.api.filter:filter_factory'
HOST = '127.0.0.1'
# Where the local server serves Heat's CloudFormation-compatible API,
# beside the native one (wait condition handles and signals of CFN
# templates point there).
CFN_PREFIX = '/cfn'
AUTH_URL_FILTER = 'simulated_keystone'
AUTH_URL_FACTORY = ('heat_breakpoint.server.cloud.identity:'
                    'auth_url_filter_factory')
CFN_PIPELINE = ('cors request_id http_proxy_to_wsgi cfnversionnegotiation '
                'noauth context apicfnv1app')


class SetupError(Exception):
    """The local server cannot start; the message says why in one line."""


def heat_etc_file(name: str) -> str:
    """Where pip put one of Heat's own files of ``etc/heat``."""
    candidates = [os.path.join(prefix, 'etc', 'heat', name)
                  for prefix in (sys.prefix,
                                 sysconfig.get_path('data'),
                                 '/usr/local', '/usr')]
    candidates.append(os.path.join('/etc/heat', name))
    for path in candidates:
        if os.path.exists(path):
            return path
    raise SetupError("Heat's %s was not found (looked in %s); is "
                     "openstack-heat installed?" % (name,
                                                    ', '.join(candidates)))


def heat_paste_file() -> str:
    """Where pip put Heat's own api-paste.ini."""
    return heat_etc_file('api-paste.ini')


def base_url(port: int) -> str:
    return 'http://%s:%d' % (HOST, port)


def with_filter(pipeline: str) -> str:
    """A stock pipeline with our filter right before its app."""
    stages = pipeline.split()
    stages.insert(len(stages) - 1, FILTER)
    return ' '.join(stages)


def keystone_pipelines(heat_paste: str = None) -> dict:
    """``{section: (flavor, pipeline)}``: what a Keystone deployment adds.

    Heat's ``default`` pipelines (``authtoken``) under the flavor
    :data:`KEYSTONE_FLAVOR`: the native API's with our filter, the CFN
    API's as they are (heat-api-cfn reads the same flavor and needs no
    filter).
    """
    paste = configparser.RawConfigParser()
    paste.optionxform = str
    paste.read(heat_paste or heat_paste_file())
    if not paste.has_option('composite:api', 'default'):
        return {}
    found = {'composite:api': (KEYSTONE_FLAVOR, with_filter(
        paste.get('composite:api', 'default')))}
    if paste.has_option('composite:api-cfn', 'default'):
        found['composite:api-cfn'] = (
            KEYSTONE_FLAVOR, paste.get('composite:api-cfn', 'default'))
    return found


def write_paste_file(state_dir: str, auth_url: str = None) -> str:
    """Heat's api-paste.ini plus our filter and its two flavors.

    ``noauth_breakpoint`` (no Keystone) and ``default_breakpoint``
    (Keystone, :func:`keystone_pipelines`); heat.conf picks one. With
    ``auth_url``, requests of the noauth flavor name it as their Keystone
    (the simulated cloud's: :mod:`heat_breakpoint.server.cloud.identity`).
    """
    paste = configparser.RawConfigParser()
    paste.optionxform = str
    paste.read(heat_paste_file())
    stages = with_filter(paste.get('composite:api', 'noauth')).split()
    cfn_stages = CFN_PIPELINE.split()
    if auth_url:
        for pipeline in (stages, cfn_stages):
            pipeline.insert(pipeline.index('noauth') + 1, AUTH_URL_FILTER)
        paste['filter:%s' % AUTH_URL_FILTER] = {
            'paste.filter_factory': AUTH_URL_FACTORY, 'auth_url': auth_url}
    paste.set('composite:api', FLAVOR, ' '.join(stages))
    paste['filter:%s' % FILTER] = {'paste.filter_factory': FILTER_FACTORY}
    for section, (flavor, pipeline) in keystone_pipelines().items():
        paste.set(section, flavor, pipeline)
    # Heat 24 (2025.1) names its root app per flavor, ``heat-api-noauth``,
    # and loads ``heat-api-<flavor>`` only; later releases fall back to
    # ``heat-api``.
    # The same for the CFN API's root app, ``heat-api-cfn-<flavor>``.
    per_flavor = 'composite:heat-api-noauth'
    if paste.has_section(per_flavor):
        for flavor in (FLAVOR, KEYSTONE_FLAVOR):
            paste['composite:heat-api-%s' % flavor] = dict(
                paste.items(per_flavor))
            if paste.has_section('composite:heat-api-cfn'):
                paste['composite:heat-api-cfn-%s' % flavor] = dict(
                    paste.items('composite:heat-api-cfn'))
    if paste.has_section('composite:api-cfn'):
        paste.set('composite:api-cfn', FLAVOR, ' '.join(cfn_stages))
        # Heat has no noauth CFN pipeline; the server run with Heat's own
        # ``noauth`` flavor (our filter left out) mounts the CFN API too.
        if not paste.has_option('composite:api-cfn', 'noauth'):
            paste.set('composite:api-cfn', 'noauth', ' '.join(cfn_stages))
            if paste.has_section('composite:heat-api-cfn'):
                paste['composite:heat-api-cfn-noauth'] = dict(
                    paste.items('composite:heat-api-cfn'))
    path = os.path.join(state_dir, 'api-paste.ini')
    with open(path, 'w') as out:
        paste.write(out)
    return path


def write_environment_dir(state_dir: str) -> str:
    """Heat's global environment, pointing at Heat's bundled templates.

    Heat's ``environment.d/default.yaml`` maps ``AWS::CloudWatch::Alarm``
    and ``AWS::RDS::DBInstance`` to templates under /etc/heat/templates;
    pip installs them beside the package instead.
    """
    env_dir = os.path.join(state_dir, 'environment.d')
    os.makedirs(env_dir, exist_ok=True)
    try:
        source = heat_etc_file(os.path.join('environment.d', 'default.yaml'))
        templates = heat_etc_file('templates')
    except SetupError:
        return env_dir
    with open(source) as f:
        text = f.read()
    text = text.replace('file:///etc/heat/templates/',
                        'file://%s/' % os.path.abspath(templates))
    with open(os.path.join(env_dir, 'default.yaml'), 'w') as out:
        out.write(text)
    return env_dir


def write_token_response(state_dir: str, port: int) -> str:
    """What noauth hands Heat as the token: a catalog naming Heat itself.

    Heat asks the catalog whether its own services exist before it runs
    ``OS::Heat::SoftwareConfig``, ``OS::Heat::Stack`` and their kind; the
    local server is both the orchestration and the cloudformation
    endpoint.
    """
    url = base_url(port)

    def service(kind, name, endpoint):
        return {'type': kind, 'name': name, 'id': name,
                'endpoints': [{'id': '%s-%s' % (name, interface),
                               'interface': interface,
                               'region': 'RegionOne',
                               'region_id': 'RegionOne', 'url': endpoint}
                              for interface in ('public', 'internal',
                                                'admin')]}

    domain = {'id': 'default', 'name': 'Default'}
    token = {'token': {
        'methods': ['token'], 'expires_at': '2099-12-31T23:59:59.000000Z',
        'issued_at': '2025-01-01T00:00:00.000000Z',
        'user': {'id': 'admin', 'name': 'admin', 'domain': domain},
        'project': {'id': 'admin', 'name': 'admin', 'domain': domain},
        'roles': [{'id': 'admin', 'name': 'admin'}],
        'catalog': [service('orchestration', 'heat', url + '/v1/admin'),
                    service('cloudformation', 'heat-cfn',
                            url + CFN_PREFIX + '/v1')]}}
    path = os.path.join(state_dir, 'token_response.json')
    with open(path, 'w') as out:
        json.dump(token, out, indent=1)
    return path


class KeystoneAuth(typing.NamedTuple):
    """A Keystone Heat authenticates against, and Heat's account there.

    ``username`` and ``password``: Heat's service user (it validates the
    callers' tokens and is the trustee of every stack's trust). The stack
    user domain (for the users Heat makes for wait conditions and
    deployments) and its admin are optional, as in Heat.
    """
    url: str
    username: str
    password: str
    project: str = 'service'
    user_domain: str = 'Default'
    project_domain: str = 'Default'
    region: str = 'RegionOne'
    stack_user_domain: typing.Optional[str] = None
    stack_domain_admin: typing.Optional[str] = None
    stack_domain_admin_password: typing.Optional[str] = None


def keystone_options(auth: KeystoneAuth) -> dict:
    """heat.conf as a cloud with Keystone configures it, by section.

    Tokens validated by keystonemiddleware (``[keystone_authtoken]``);
    the operation's work deferred to a trust Heat's service user holds
    (``deferred_auth_method`` and ``reauthentication_auth_method`` =
    ``trusts``, ``[trustee]``), so that it outlives the caller's token;
    secure RBAC on (Keystone gives ``member`` the ``reader`` role).
    """
    service = {'auth_type': 'password', 'auth_url': auth.url,
               'username': auth.username, 'password': auth.password,
               'user_domain_name': auth.user_domain}
    default = {'deferred_auth_method': 'trusts',
               'reauthentication_auth_method': 'trusts',
               # Work on a trust makes remote stacks (OS::Heat::Stack),
               # which need trusts of their own (Keystone's [trust]
               # allow_redelegation too).
               'allow_trusts_redelegation': 'true',
               'region_name_for_services': auth.region}
    if auth.stack_user_domain:
        default.update({
            'stack_user_domain_name': auth.stack_user_domain,
            'stack_domain_admin': auth.stack_domain_admin,
            'stack_domain_admin_password':
                auth.stack_domain_admin_password})
    return {
        'DEFAULT': default,
        'paste_deploy': {'flavor': KEYSTONE_FLAVOR},
        'keystone_authtoken': dict(
            service, www_authenticate_uri=auth.url,
            project_name=auth.project,
            project_domain_name=auth.project_domain,
            region_name=auth.region),
        'trustee': service,
        'clients_keystone': {'auth_uri': auth.url},
        'ec2authtoken': {'auth_uri': auth.url.rstrip('/') + '/v3'},
        'oslo_policy': {'enforce_new_defaults': 'true',
                        'enforce_scope': 'true'},
    }


def write_heat_conf(state_dir: str, paste_file: str,
                    port: int = 0, keystone: KeystoneAuth = None) -> str:
    """heat.conf of the local Heat: noauth, or ``keystone``'s."""
    conf = configparser.RawConfigParser()
    conf['DEFAULT'] = {
        'host': 'heat-breakpoint-local',
        'transport_url': 'fake:/',
        'convergence_engine': 'true',
        # No Keystone here: store the request's credentials, not a trust.
        'deferred_auth_method': 'password',
        'log_file': os.path.join(state_dir, 'heat.log'),
        'use_stderr': 'false',
        # Off by default in Heat for a shared cloud (an adopt trusts the
        # caller's resource data); one person's local Heat has them on.
        'enable_stack_adopt': 'true',
        'enable_stack_abandon': 'true',
        'environment_dir': write_environment_dir(state_dir),
    }
    if port:
        url = base_url(port)
        conf['DEFAULT'].update({
            'heat_waitcondition_server_url':
                url + CFN_PREFIX + '/v1/waitcondition',
            'heat_metadata_server_url': url + CFN_PREFIX + '/',
        })
        if keystone is None:
            conf['noauth'] = {
                'token_response': write_token_response(state_dir, port)}
        conf['clients_heat'] = {'url': url + '/v1/%(tenant_id)s'}
    database = os.path.join(state_dir, 'heat.sqlite')
    conf['database'] = {'connection': 'sqlite:///%s' % database}
    conf['paste_deploy'] = {'api_paste_config': paste_file,
                            'flavor': FLAVOR}
    conf['oslo_messaging_notifications'] = {'driver': 'log'}
    # noauth gives every request the single role 'admin'; with no Keystone
    # to imply 'reader' from it, the new policy defaults would refuse all.
    conf['oslo_policy'] = {'enforce_new_defaults': 'false',
                           'enforce_scope': 'false'}
    if keystone is not None:
        for section, values in keystone_options(keystone).items():
            if not conf.has_section(section) and section != 'DEFAULT':
                conf[section] = {}
            conf[section].update(values)
    path = os.path.join(state_dir, 'heat.conf')
    with open(path, 'w') as out:
        out.write('# Generated by heat-breakpoint-server on every start; '
                  'pass --config-file to override.\n')
        conf.write(out)
    return path
