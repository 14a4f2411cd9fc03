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
"""Horizon settings snippet: our policy file in ``POLICY_FILES``.

Copied into ``openstack_dashboard/local/local_settings.d/``; Horizon runs
it with its settings in scope. The panel then shows an action only to a
user the breakpoint policy rules allow it (heat-api checks them anyway).
"""

import os

import heatclient_ext.dashboard

_CONF = os.path.join(os.path.dirname(heatclient_ext.dashboard.__file__),
                     'conf')
# Horizon execs this file in its settings module: the names are there.
POLICY_FILES.update({  # type: ignore[name-defined]  # noqa: F821
    'breakpoints': os.path.join(_CONF, 'breakpoints_policy.yaml')})
DEFAULT_POLICY_FILES.update({  # type: ignore[name-defined]  # noqa: F821
    'breakpoints': os.path.join(_CONF, 'default_policies',
                                'breakpoints.yaml')})
