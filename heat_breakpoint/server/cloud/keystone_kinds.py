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


class Role(models.SimulatedType):
    kind = 'role'
    entity = 'KeystoneRole'
    lookups = {'get_role_id': True}
    section = 'roles'


class Project(models.SimulatedType):
    kind = 'project'
    entity = 'KeystoneProject'
    lookups = {'get_project_id': True}
    section = 'projects'


class Domain(models.SimulatedType):
    kind = 'domain'
    entity = 'KeystoneDomain'
    lookups = {'get_domain_id': True}
    section = 'domains'


class Group(models.SimulatedType):
    kind = 'group'
    entity = 'KeystoneGroup'
    lookups = {'get_group_id': True}
    section = 'groups'


class Service(models.SimulatedType):
    kind = 'service'
    entity = 'KeystoneService'
    lookups = {'get_service_id': True}
    section = 'services'


class User(models.SimulatedType):
    kind = 'user'
    entity = 'KeystoneUser'
    lookups = {'get_user_id': True}
    section = 'users'


class Region(models.SimulatedType):
    kind = 'region'
    entity = 'KeystoneRegion'
    lookups = {'get_region_id': True}
    section = 'regions'
