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
"""Which credentials a released check is sent with.

(On the real local Heat: ``tests/functional/test_released_signals.py``;
with a real Keystone and trusts: ``tests/distributed``.) Here the choice
alone, with Heat's stored context replaced: the stack's own, never the
releaser's; the stored credentials alone only where no Keystone can be
asked for the roles.
"""

import pytest

from heat.common import context as heat_context

from heat_breakpoint.engine.commands import credentials

WITHOUT_ROLES = object()


class Stored(heat_context.RequestContext):
    pass


class Stack(object):
    def __init__(self, **creds):
        self.stored = Stored(is_admin=False, overwrite=False, **creds)

    def stored_context(self):
        return self.stored


@pytest.fixture(autouse=True)
def without_roles(monkeypatch):
    monkeypatch.setattr(credentials, 'stored_context',
                        lambda stack: WITHOUT_ROLES)


@pytest.mark.parametrize('creds', [
    {'trust_id': 'a-trust', 'trustor_user_id': 'owner'},
    {'username': 'owner', 'password': 'secret',
     'auth_url': 'http://keystone.example:5000/v3'},
    {'username': 'owner', 'password': 'secret',
     'auth_url': 'https://keystone.example/identity/v2.0'},
])
def test_the_stack_s_stored_context_where_keystone_is_known(creds):
    stack = Stack(**creds)
    assert credentials.operation_context(stack) is stack.stored


@pytest.mark.parametrize('auth_url', ['url', '', None])
def test_the_stored_credentials_alone_without_a_keystone(auth_url):
    # Heat's noauth names its Keystone 'url'; nothing asks for roles.
    stack = Stack(username='admin', password='unset', auth_url=auth_url)
    assert credentials.operation_context(stack) is WITHOUT_ROLES
