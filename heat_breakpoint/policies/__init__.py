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
"""The plugin's policy rules, registered the oslo.policy way.

``list_rules`` is the ``oslo.policy.policies`` entry point
(``oslopolicy-sample-generator --namespace heat_breakpoint``); heat-api
and heat-engine add the same rules to Heat's own enforcer
(:func:`register`), so they are read from Heat's policy file and follow
its ``[oslo_policy]`` options (``enforce_new_defaults``,
``enforce_scope``). No Heat import here: the sample generator needs none.
"""

import itertools
import threading

from heat_breakpoint.policies import rules

# Two requests a fresh heat-engine serves at once must not both register
# (oslo.policy refuses a rule registered twice: DuplicatePolicyError).
_REGISTERING = threading.Lock()


def list_rules():
    return itertools.chain(rules.list_rules())


def register(enforcer) -> None:
    """Add our rules to an oslo.policy ``Enforcer`` that lacks them.

    Cheap enough to call before every check (one dict look-up per rule
    once registered): Heat may make its enforcer late, or a new one.
    """
    if all(rule.name in enforcer.registered_rules for rule in list_rules()):
        return
    with _REGISTERING:
        missing = [rule for rule in list_rules()
                   if rule.name not in enforcer.registered_rules]
        if missing:
            enforcer.register_defaults(missing)


def authorize(cnxt, action: str) -> None:
    """Enforce ``breakpoints:<action>`` for a Heat request context.

    On the context's own project, with Heat's enforcer (``cnxt.policy``),
    as Heat's API does once the path's project matched the context's.
    Raises the enforcer's exception (Heat's ``Forbidden``) when refused.
    """
    enforcer = cnxt.policy
    register(enforcer.enforcer)
    allowed = enforcer.enforce(context=cnxt, action=action,
                               scope=rules.SCOPE,
                               target={'project_id': cnxt.project_id},
                               is_registered_policy=True)
    if not allowed:
        raise enforcer.exc(action=rules.POLICY_ROOT % action)
