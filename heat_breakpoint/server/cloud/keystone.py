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
"""The Keystone side of Heat's own resources, when there is no Keystone.

Heat's wait condition handles, software deployments, signals and
``AWS::IAM`` resources make stack users, EC2 key pairs and tokens through
Heat's Keystone wrapper (``heat_keystoneclient``); the local server runs
with ``noauth``. This is that wrapper's interface over the simulated
cloud's store: users and credentials are rows there, tokens are opaque
strings (``noauth`` takes any). The resources themselves stay Heat's.
"""

import collections

from heat_breakpoint.server.cloud import lookups
from heat_breakpoint.server.cloud import values

AccessKey = collections.namedtuple('AccessKey', ['id', 'access', 'secret'])


class SimulatedKeystone(object):
    """``heat_keystoneclient.KsClientWrapper`` over the simulated cloud."""

    def __init__(self, context, store):
        self.context = context
        self.store = store
        self.client = lookups.SimulatedClient('keystone')
        self.session = context.keystone_session
        self.auth_token = None
        self.stack_domain = None
        self.stack_domain_id = 'default'
        self.region_name = None
        self.v3_endpoint = 'http://keystone.simulated.invalid/v3'

    def _new(self, kind: str, seed: str, data: dict):
        gen = self.store.generation(None, seed)
        object_id = values.object_id(kind, '%s#%d' % (seed, gen))
        data = dict(data, id=object_id)
        self.store.add(kind, object_id, data.get('name'), 'created', data,
                       project=self.context.project_id, seed=seed)
        return object_id

    # Users ---------------------------------------------------------------
    def create_stack_user(self, username, password=None):
        return self._new('user', 'stack-user:%s' % username,
                         {'name': username[-255:], 'enabled': True,
                          'default_project_id': self.context.project_id})

    def create_stack_domain_user(self, username, project_id, password=None):
        return self.create_stack_user(username, password)

    def delete_stack_user(self, user_id):
        self.store.delete(user_id)

    def delete_stack_domain_user(self, user_id, project_id):
        self.store.delete(user_id)

    def _enable(self, user_id, enabled):
        self.store.update(user_id, enabled=enabled)

    def disable_stack_user(self, user_id):
        self._enable(user_id, False)

    def enable_stack_user(self, user_id):
        self._enable(user_id, True)

    def disable_stack_domain_user(self, user_id, project_id):
        self._enable(user_id, False)

    def enable_stack_domain_user(self, user_id, project_id):
        self._enable(user_id, True)

    def stack_domain_user_token(self, user_id, project_id, password):
        return 'gAAAAA%s' % values.hex_token('token:%s:%s' % (
            user_id, password), 64)

    # Projects and trusts -------------------------------------------------
    def create_stack_domain_project(self, stack_id):
        return self.context.project_id

    def delete_stack_domain_project(self, project_id):
        return None

    def create_trust_context(self):
        return self.context

    def delete_trust(self, trust_id):
        return None

    def regenerate_trust_context(self):
        return self.context

    # EC2 key pairs -------------------------------------------------------
    def create_ec2_keypair(self, user_id=None):
        user_id = user_id or self.context.user_id
        seed = 'ec2:%s' % user_id
        access = values.hex_token(seed + ':access')
        secret = values.hex_token(seed + ':secret')
        cred_id = self._new('credential', seed,
                            {'user_id': user_id, 'access': access,
                             'secret': secret, 'type': 'ec2'})
        return AccessKey(id=cred_id, access=access, secret=secret)

    def create_stack_domain_user_keypair(self, user_id, project_id):
        return self.create_ec2_keypair(user_id)

    def get_ec2_keypair(self, credential_id=None, access=None,
                        user_id=None):
        if credential_id:
            found = self.store.get(credential_id)
        else:
            found = next(iter(self.store.all('credential', access=access)),
                         None)
        if found is None:
            return None
        return AccessKey(id=found.id, access=found['access'],
                         secret=found['secret'])

    def delete_ec2_keypair(self, credential_id=None, access=None,
                           user_id=None):
        found = self.get_ec2_keypair(credential_id, access, user_id)
        if found is not None:
            self.store.delete(found.id)

    def delete_stack_domain_user_keypair(self, user_id, project_id,
                                         credential_id):
        self.delete_ec2_keypair(credential_id=credential_id)

    def server_keystone_endpoint_url(self, fallback_endpoint):
        return fallback_endpoint or self.v3_endpoint

    def url_for(self, **kwargs):
        return self.v3_endpoint
