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
"""The engine's own check of a command before it changes an operation.

heat-api refuses our commands to callers without the rule for them
(:mod:`heat_breakpoint.api.request_policy`), but a command is only a resource
signal with our keys, and a signal reaches the engine through any heat-api
(one without our filter too) or an RPC client. So where the engine takes a
signal (``EngineService.resource_signal``, see :mod:`seam`), the same rule
is enforced again with the signal's request context, before the command
or the release does anything. Signals without our keys (a stock
``hook clear`` too) are Heat's alone, as in stock Heat.

The breakpoints view is an engine RPC method of ours
(``breakpoint_list``): heat-api checks ``breakpoints:index`` before it
asks, and the engine checks it again with the caller's context
(:func:`check_list`), so an RPC client that skips heat-api sees no more.
"""

from oslo_log import log as logging

from heat_breakpoint import policies
from heat_breakpoint.policies import rules

LOG = logging.getLogger(__name__)


def _refused(cnxt, action) -> None:
    LOG.info('Refused %(rule)s to user %(user)s of project %(project)s',
             {'rule': rules.POLICY_ROOT % action,
              'user': getattr(cnxt, 'user_id', None),
              'project': getattr(cnxt, 'project_id', None)})


def check_list(cnxt) -> None:
    """Refuse the breakpoints view to a caller without ``breakpoints:index``.

    Raises Heat's ``Forbidden`` (heat-api answers 403); the RPC method
    hands it back as an expected error, as every error of the view.
    """
    from heat.common import exception
    try:
        policies.authorize(cnxt, rules.INDEX)
    except exception.Forbidden:
        _refused(cnxt, rules.INDEX)
        raise


def check_signal(cnxt, details) -> None:
    """Refuse, as Heat's API would (403), a command the caller may not give.

    Raised as an RPC ``ExpectedException`` wrapping Heat's ``Forbidden``,
    as Heat's own engine methods raise their expected errors (no
    traceback in the engine log; heat-api answers 403).
    """
    action = rules.action_for_signal(details)
    if action is None:
        return
    from heat.common import exception
    import oslo_messaging
    try:
        policies.authorize(cnxt, action)
    except exception.Forbidden:
        _refused(cnxt, action)
        raise oslo_messaging.rpc.dispatcher.ExpectedException()
