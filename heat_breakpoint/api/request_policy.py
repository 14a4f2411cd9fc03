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
"""Who may do what, decided in heat-api before the filter does any work.

The filter sits in front of Heat's controllers, so without this module it
would parse and check a caller's breakpoints before Heat refused the
caller, and pass our commands on as plain resource signals. Here:

* a stack request (create, preview, update, validate) carrying
  breakpoints is first held to Heat's own rule for it
  (``stacks:create``, ``stacks:update``, ...), so a caller Heat refuses is
  refused at Heat's cost;
* a resource signal carrying one of our commands or releases is held to
  our rule for it (:mod:`heat_breakpoint.policies`), on top of Heat's
  ``resource:signal``;
* the breakpoints view is held to ``breakpoints:index``.

Refusals are Heat's ``Forbidden`` (HTTP 403 through Heat's faultwrap), and
the path's project must be the caller's, as in Heat's API. The engine
checks commands again (:mod:`heat_breakpoint.engine.rpc_policy`).
"""

import typing

from heat_breakpoint import policies
from heat_breakpoint.policies import rules


def context_of(environ) -> typing.Optional[object]:
    """The request's Heat context, if Heat's context filter made one."""
    return environ.get('webob.adhoc_attrs', {}).get('context')


def _forbidden():
    from heat.common import exception
    return exception.Forbidden()


def check_project(cnxt, tenant: str) -> str:
    """The project to check against, as Heat's API chooses it.

    An admin may name another project in the path (Heat redirects admins
    to the stack owner's URL); anyone else must name their own.
    """
    if cnxt.is_admin and cnxt.project_id:
        return cnxt.project_id
    if cnxt.project_id != tenant:
        raise _forbidden()
    return tenant


def heat_rule(cnxt, tenant: str, action: str) -> None:
    """Enforce Heat's ``stacks:<action>`` as its controller will."""
    project = check_project(cnxt, tenant)
    if not cnxt.policy.enforce(context=cnxt, action=action,
                               scope='stacks',
                               target={'project_id': project},
                               is_registered_policy=True):
        raise _forbidden()


def our_rule(cnxt, tenant: str, action: str) -> None:
    """Enforce ``breakpoints:<action>`` for the path's project."""
    check_project(cnxt, tenant)
    policies.authorize(cnxt, action)


def signal(cnxt, tenant: str, details: object) -> None:
    """Refuse a signal with a command the caller may not give."""
    action = rules.action_for_signal(details)
    if action is not None:
        our_rule(cnxt, tenant, action)


def view(cnxt, tenant: str) -> None:
    our_rule(cnxt, tenant, rules.INDEX)
