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
``[DEFAULT] plugin_dirs``) asks Keystone, on its create, who the
credentials of the check that creates it are: it sends a request with
its context's token (what any resource's client would send) to
``GET /v3/auth/tokens`` about that same token. Its ``identity``
attribute is Keystone's answer (user, project, trust, the trustor,
roles) beside what the request context itself says. Never deploy it.
"""

import json

from heat.engine import attributes
from heat.engine import properties
from heat.engine import resource
from heat.engine import support


def describe(token):
    trust = token.get('OS-TRUST:trust') or {}
    return {
        'user': token['user']['name'],
        'project': (token.get('project') or {}).get('name'),
        'trust_id': trust.get('id'),
        'trustor': (trust.get('trustor_user') or {}).get('id'),
        'roles': sorted(role['name'] for role in token.get('roles', ())),
    }


class WhoAmI(resource.Resource):
    support_status = support.SupportStatus(version='2014.1')

    PROPERTIES = (VALUE,) = ('value',)
    ATTRIBUTES = (IDENTITY,) = ('identity',)

    properties_schema = {
        VALUE: properties.Schema(properties.Schema.STRING,
                                 'Anything, to depend on another resource.',
                                 default=''),
    }
    attributes_schema = {
        IDENTITY: attributes.Schema(
            'Who Keystone says created this resource.',
            type=attributes.Schema.MAP),
    }

    def handle_create(self):
        sess = self.context.keystone_session
        token = sess.get_token()
        answer = sess.get(
            self.context.keystone_v3_endpoint.rstrip('/') + '/auth/tokens',
            headers={'X-Subject-Token': token})
        found = {'keystone': describe(answer.json()['token']),
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
