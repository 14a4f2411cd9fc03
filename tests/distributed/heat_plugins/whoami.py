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
"""TEST ONLY: a resource that says on whose credentials it was created.

``Test::WhoAmI`` (loaded by the Keystone tier's heat-engines from
``[DEFAULT] plugin_dirs``) records, on its create, whose credentials the
check that creates it has: the token its clients would send, as
Keystone issued it (user, project, trust, the trustor, roles), which it
then sends to Keystone (``GET /v3/auth/catalog``: refused once the token
expired). Its ``identity`` attribute is that, beside what the request
context itself says. With
``fail_once`` (a file name), its first create fails (and writes that
file), the next one goes through: a failure to hold and retry. Never
deploy it.
"""

import json
import os

from heat.engine import attributes
from heat.engine import properties
from heat.engine import resource
from heat.engine import support


def describe(access):
    """A keystoneauth AccessInfo (a token Keystone issued), in short."""
    return {'user': access.username, 'project': access.project_name,
            'trust_id': access.trust_id, 'trustor': access.trustor_user_id,
            'roles': sorted(access.role_names)}


class WhoAmI(resource.Resource):
    support_status = support.SupportStatus(version='2014.1')

    PROPERTIES = (VALUE, FAIL_ONCE) = ('value', 'fail_once')
    ATTRIBUTES = (IDENTITY,) = ('identity',)

    properties_schema = {
        VALUE: properties.Schema(properties.Schema.STRING,
                                 'Anything, to depend on another resource.',
                                 default=''),
        FAIL_ONCE: properties.Schema(
            properties.Schema.STRING,
            'A file: the first create fails and writes it.', default=''),
    }
    attributes_schema = {
        IDENTITY: attributes.Schema(
            'Who Keystone says created this resource.',
            type=attributes.Schema.MAP),
    }

    def handle_create(self):
        marker = self.properties[self.FAIL_ONCE]
        if marker and not os.path.exists(marker):
            with open(marker, 'w') as out:
                out.write(self.name)
            raise Exception('%s fails once, on purpose' % self.name)
        sess = self.context.keystone_session
        # The token this resource's clients send, as Keystone issued or
        # validated it; then a request with it, which Keystone refuses
        # once it has expired.
        access = sess.auth.get_access(sess)
        sess.get(self.context.keystone_v3_endpoint.rstrip('/') +
                 '/auth/catalog').raise_for_status()
        found = {'keystone': describe(access),
                 'context': {'user_id': self.context.user_id,
                             'trust_id': self.context.trust_id,
                             'trustor_user_id': self.context.trustor_user_id,
                             'project_id': self.context.project_id}}
        self.data_set(self.IDENTITY, json.dumps(found))
        self.resource_id_set(found['keystone']['user'])

    def _resolve_attribute(self, name):
        if name == self.IDENTITY:
            raw = self.data().get(self.IDENTITY)
            return json.loads(raw) if raw else None


def resource_mapping():
    return {'Test::WhoAmI': WhoAmI}
