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
"""Who may look and who may change an operation, with a real Keystone.

The policy tests of the functional tier (``tests/functional/test_policy``,
where a test-only filter reads roles from the token) run here against
heat-api behind keystonemiddleware, with Keystone's users, roles and
tokens: its ``member``, ``reader`` and ``heat_stack_user``, a role Heat
does not know for the caller without one, a member of another project.
The ``openstack`` CLI authenticates with a password, the legacy shell and
the python API send a token. Keystone is the referee of the roles (its
implied roles: a member is a reader too); our filter and the engine's
checks answer as with the role header.
"""

import pytest
import requests

from tests.distributed import identity
from tests.functional import test_policy
# The tests, run here with this module's ``rbac``.
from tests.functional.test_policy import held_stack  # noqa: F401
from tests.functional.test_policy import test_another_project_gets_404_by_id  # noqa: F401,E501
from tests.functional.test_policy import test_another_project_learns_nothing  # noqa: F401,E501
from tests.functional.test_policy import test_member_can_do_everything  # noqa: F401,E501
from tests.functional.test_policy import test_osc_watch_as_reader  # noqa: F401,E501
from tests.functional.test_policy import test_raw_signal_cannot_bypass  # noqa: F401,E501
from tests.functional.test_policy import test_raw_signal_in_osc_as_reader  # noqa: F401,E501
from tests.functional.test_policy import test_reader_can_look  # noqa: F401
from tests.functional.test_policy import test_reader_cannot_edit_from_any_front_end  # noqa: F401,E501
from tests.functional.test_policy import test_reader_cannot_fix_and_go_on  # noqa: F401,E501
from tests.functional.test_policy import test_reader_is_refused_every_change  # noqa: F401,E501
from tests.functional.test_policy import test_reader_watch_interactive_in_a_terminal  # noqa: F401,E501
from tests.functional.test_policy import test_reader_watch_looks_and_cannot_release  # noqa: F401,E501
from tests.functional.test_policy import test_stack_user_and_no_role_are_refused  # noqa: F401,E501
from tests.functional.test_policy import test_stock_hook_clear_keeps_resource_signal  # noqa: F401,E501

#: The callers of the policy tests, as Keystone's users.
USERS = {
    test_policy.MEMBER: 'alpha-member',
    test_policy.READER: 'alpha-reader',
    test_policy.STACK_USER: 'alpha-stack-user',
    test_policy.NO_ROLE: 'alpha-observer',
    test_policy.OTHER_MEMBER: 'beta-member',
}


class KeystoneCallers(object):
    """:class:`test_policy.HeaderCallers`, with Keystone's users."""

    def __init__(self, cluster, keystone):
        self.cluster = cluster
        self.keystone = keystone
        self.url = cluster.url

    def user(self, who):
        return USERS[who]

    def token(self, who):
        return self.keystone.session(self.user(who)).get_token()

    def endpoint(self, who, prefix=''):
        project = identity.USERS[self.user(who)][0]
        return '%s%s/v1/%s' % (self.url, prefix, self.keystone.ids[project])

    def client(self, who, prefix=''):
        from heatclient import client as heat_client
        return heat_client.Client(
            '1', session=self.keystone.session(self.user(who)),
            endpoint_override=self.endpoint(who, prefix))

    def osc_env(self, who):
        return self.keystone.env(self.user(who))


@pytest.fixture(scope='module')
def rbac(keystone_cluster, keystone):
    return KeystoneCallers(keystone_cluster, keystone)


def test_no_token_or_a_bad_one_is_401(rbac, held_stack):  # noqa: F811
    url = '%s/stacks/%s/breakpoints' % (rbac.endpoint(test_policy.READER),
                                        held_stack)
    assert requests.get(url, timeout=30).status_code == 401
    assert requests.get(url, headers={'X-Auth-Token': 'not-a-token'},
                        timeout=30).status_code == 401
    answer = requests.get(url, timeout=30, headers={
        'X-Auth-Token': rbac.token(test_policy.READER)})
    assert answer.status_code == 200, answer.text
