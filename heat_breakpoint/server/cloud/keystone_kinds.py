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
"""What Heat looks up in Keystone: roles, projects, domains, users...

Heat's Keystone plugin finds them by name or ID (a role assignment's
role, a project's domain); without ``--keystone`` the inventory answers.
The simulated Keystone's calls (:mod:`.keystone`) are another matter:
these classes only say what each kind is to a look-up.
"""

from heat_breakpoint.server.cloud import models


def _keystone_kind(kind: str) -> type:
    """What Heat's keystone plugin finds of ``kind``: its ID by name."""
    return type(kind.title(), (models.SimulatedType,), {
        '__module__': __name__, '__doc__': 'A Keystone %s.' % kind,
        'kind': kind, 'entity': 'Keystone' + kind.title(),
        'lookups': {'get_%s_id' % kind: True}, 'section': kind + 's'})


Role = _keystone_kind('role')
Project = _keystone_kind('project')
Domain = _keystone_kind('domain')
Group = _keystone_kind('group')
Service = _keystone_kind('service')
User = _keystone_kind('user')
Region = _keystone_kind('region')
