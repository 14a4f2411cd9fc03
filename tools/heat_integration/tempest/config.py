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
"""``CONF.heat_plugin`` for ``heat_integrationtests``, from the environment.

The options are those ``heat_integrationtests`` reads, with the
heat-tempest-plugin's defaults except where one local Heat with no
Keystone needs otherwise. The runner sets ``HEAT_PLUGIN_<OPTION>`` to
override one (lists comma-separated); unknown options are an error, so a
typo cannot silently fall back to a default.
"""

import os
import types

OPTIONS = {
    # Credentials are never checked (noauth), but the tests assert they
    # are set and heatclient sends them.
    'auth_url': 'http://127.0.0.1:5000/v3',
    'username': 'demo',
    'password': 'secret',
    'project_name': 'admin',
    'admin_username': 'admin',
    'admin_password': 'secret',
    'admin_project_name': 'admin',
    'user_domain_id': None,
    'project_domain_id': None,
    'user_domain_name': 'Default',
    'project_domain_name': 'Default',
    'region': 'RegionOne',
    'ca_file': None,
    'disable_ssl_certificate_validation': False,
    'build_interval': 1,
    'build_timeout': 300,
    'connectivity_timeout': 120,
    'convergence_engine_enabled': True,
    'skip_functional_tests': False,
    'skip_functional_test_list': [],
    'skip_test_stack_action_list': [],
    # Nova is absent: the tests that need these are not run.
    'instance_type': None,
    'minimal_instance_type': None,
    'minimal_image_ref': None,
    'image_ref': None,
    'keypair_name': None,
    'fixed_network_name': None,
}
PREFIX = 'HEAT_PLUGIN_'


def _parse(name, text):
    default = OPTIONS[name]
    if isinstance(default, bool):
        return text.strip().lower() in ('1', 'true', 'yes')
    if isinstance(default, int):
        return int(text)
    if isinstance(default, list):
        return [item.strip() for item in text.split(',') if item.strip()]
    return text


def load(environ=os.environ):
    """The ``heat_plugin`` group: defaults, then ``HEAT_PLUGIN_*``."""
    values = dict(OPTIONS)
    for key, text in environ.items():
        if not key.startswith(PREFIX):
            continue
        name = key[len(PREFIX):].lower()
        if name not in OPTIONS:
            raise KeyError('%s: no such heat_plugin option (known: %s)'
                           % (key, ', '.join(sorted(OPTIONS))))
        values[name] = _parse(name, text)
    return types.SimpleNamespace(**values)


CONF = types.SimpleNamespace(heat_plugin=load())
