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
"""The engine checks ``breakpoints:index`` for its view, with the caller's
context, as heat-api does (Heat's own enforcer, no server)."""

from heat.common import context as heat_context
from heat.common import exception
import pytest

from heat_breakpoint.engine import rpc_policy
from heat_breakpoint.engine.view import listing

pytestmark = pytest.mark.filterwarnings(
    'ignore:Policy enforcement is depending on:DeprecationWarning')


def context(enforcer, roles):
    cnxt = heat_context.RequestContext(project_id='p1', roles=roles,
                                       user_id='u1', is_admin=False)
    cnxt.policy = enforcer
    return cnxt


class NoService:
    """A service the refused view must never ask (it reads no stack)."""

    def __getattr__(self, name):
        raise AssertionError('the view read %s before its check' % name)


def test_a_caller_heat_refuses_resources_gets_no_view(enforcer):
    stack_user = context(enforcer, ['heat_stack_user'])
    with pytest.raises(exception.Forbidden, match='breakpoints:index'):
        rpc_policy.check_list(stack_user)
    with pytest.raises(exception.Forbidden, match='breakpoints:index'):
        listing.breakpoint_list(NoService(), stack_user, stack_name='s')


class Found(Exception):
    pass


def test_a_reader_may_look(enforcer, monkeypatch):
    reader = context(enforcer, ['reader'])
    rpc_policy.check_list(reader)

    def find_stack(service, cnxt, identity, name):
        raise Found(cnxt)

    # Past the check, the view goes on to find the stack.
    monkeypatch.setattr(listing, 'find_stack', find_stack)
    with pytest.raises(Found):
        listing.breakpoint_list(NoService(), reader, stack_name='s')
