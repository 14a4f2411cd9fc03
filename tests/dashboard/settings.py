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
"""Django settings of the panel's view tests: Horizon's test settings.

Horizon's own test settings (no Keystone, signed-cookie sessions), with
heat-dashboard's panels and ours enabled as their enabled files say, and
our settings snippet run as Horizon runs those of ``local_settings.d``.
"""

import os

import heat_dashboard
import heat_dashboard.enabled
import openstack_dashboard.enabled
from openstack_dashboard.test.settings import *  # noqa: F403,H303
from openstack_dashboard.utils import settings as settings_utils

import heatclient_ext.dashboard
import heatclient_ext.dashboard.enabled

HORIZON_CONFIG.pop('dashboards', None)  # noqa: F405
HORIZON_CONFIG.pop('default_dashboard', None)  # noqa: F405
settings_utils.update_dashboards(
    [openstack_dashboard.enabled, heat_dashboard.enabled,
     heatclient_ext.dashboard.enabled],
    HORIZON_CONFIG, INSTALLED_APPS)  # noqa: F405
# Horizon's test settings enabled its own dashboards once already.
INSTALLED_APPS = list(dict.fromkeys(INSTALLED_APPS))  # noqa: F405

_HEAT_CONF = os.path.join(os.path.dirname(heat_dashboard.__file__), 'conf')
POLICY_FILES = dict(POLICY_FILES, orchestration=os.path.join(  # noqa: F405
    _HEAT_CONF, 'heat_policy.yaml'))
DEFAULT_POLICY_FILES = dict(  # noqa: F405
    DEFAULT_POLICY_FILES, orchestration=os.path.join(  # noqa: F405
        _HEAT_CONF, 'default_policies', 'heat.yaml'))
SNIPPET = os.path.join(os.path.dirname(heatclient_ext.dashboard.__file__),
                       'local_settings', '_1669_breakpoints_settings.py')
with open(SNIPPET, encoding='utf-8') as _snippet:
    exec(_snippet.read())
