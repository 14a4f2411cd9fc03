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
"""Who may look at a stack's breakpoints, and who may change its operation.

Looking (``list``, ``show``, ``progress``, ``graph``, ``watch``) is
allowed to whoever may list the stack's resources (Heat's
``resource:index``). Every command that changes the running operation
(``step``, ``continue``, ``continue --to``, ``set``, ``clear``,
``retry``, and the releases an interactive ``watch -i`` sends) is
allowed to whoever may update the stack (Heat's ``stacks:update``;
``retain``, which leaves a resource behind, to whoever may delete it):
commands travel as resource signals, and Heat's ``resource:signal``
alone lets readers and ``heat_stack_user`` in. The defaults are Heat's
for those two rules, new and deprecated alike.

A stock ``{"unset_hook": ...}`` signal (``openstack stack hook clear``)
carries none of our keys: it stays under ``resource:signal``, on a
native hook and on a breakpoint's hook alike, exactly as in stock Heat.
"""

import typing

from oslo_log import versionutils
from oslo_policy import policy

from heat_breakpoint.model import kinds
from heat_breakpoint.model import protocol

POLICY_ROOT = 'breakpoints:%s'
SCOPE = 'breakpoints'

INDEX = 'index'
# Each exit (:mod:`heat_breakpoint.model.kinds`) has a rule of its name.
EXITS = tuple(way.name for way in kinds.EXITS)
CONTINUE = kinds.CONTINUE.name
SET = 'set'
CLEAR = 'clear'

# As Heat's own personas (heat.policies.base), spelled out so that the
# rules read the same in a sample generated without Heat.
PROJECT_MEMBER = 'role:member and project_id:%(project_id)s'
PROJECT_READER = 'role:reader and project_id:%(project_id)s'
RULE_DENY_STACK_USER = 'rule:deny_stack_user'

DEPRECATED_REASON = """
The breakpoint policies follow Heat's: system scope and default roles,
with Heat's legacy defaults kept while enforce_new_defaults is off.
"""

_VIEW_PATH = '/v1/{tenant_id}/stacks/{stack_name}/{stack_id}/breakpoints'
_SIGNAL_PATH = ('/v1/{tenant_id}/stacks/{stack_name}/{stack_id}/'
                'resources/{resource_name}/signal')

# What a command or a release key in a signal needs.
_COMMANDS = {'set': SET, 'clear': CLEAR, 'to': CONTINUE}
_RELEASES = dict({
    protocol.RELEASE_RUN_TO: CONTINUE,
    protocol.RELEASE_CLEAR: CLEAR,
    # Releases the held resources only: what clear does to a hold.
    protocol.RELEASE_RESUME: CLEAR,
}, **{way.name: way.name for way in kinds.EXITS})


def _deprecated(action: str) -> policy.DeprecatedRule:
    return policy.DeprecatedRule(
        name=POLICY_ROOT % action,
        check_str=RULE_DENY_STACK_USER,
        deprecated_reason=DEPRECATED_REASON,
        deprecated_since=versionutils.deprecated.WALLABY)


def _signal(payload: str) -> list[dict]:
    """The route, with the signal payload that asks for the rule."""
    return [{'path': '%s (%s)' % (_SIGNAL_PATH, payload), 'method': 'POST'}]


def _changing(action: str, description: str, operations) -> \
        policy.DocumentedRuleDefault:
    return policy.DocumentedRuleDefault(
        name=POLICY_ROOT % action,
        check_str=PROJECT_MEMBER,
        scope_types=['project'],
        description=description,
        operations=operations,
        deprecated_rule=_deprecated(action))


rules = [
    policy.DocumentedRuleDefault(
        name=POLICY_ROOT % INDEX,
        check_str=PROJECT_READER,
        scope_types=['project'],
        description='See what is held and armed in a stack, one resource '
                    'in full, the progress of its operation (breakpoint '
                    'list, show, graph, watch). Default: as '
                    'resource:index.',
        operations=[{'path': _VIEW_PATH, 'method': 'GET'}],
        deprecated_rule=_deprecated(INDEX)),
] + [
    _changing(way.name, way.policy_help, _signal(way.policy_payload))
    for way in kinds.EXITS
] + [
    _changing(
        SET,
        'Arm a breakpoint in the running operation (breakpoint set). '
        'Default: as stacks:update.',
        _signal('breakpoint_command: set')),
    _changing(
        CLEAR,
        'Release a held resource or disarm a breakpoint in the running '
        'operation (breakpoint clear; an editor\'s Continue). Default: as '
        'stacks:update.',
        _signal('breakpoint_release: clear, "continue, breakpoints kept"; '
                'breakpoint_command: clear')),
]


def list_rules():
    return rules


def action_for_signal(details: object) -> typing.Optional[str]:
    """The action (``step``, ``set`` ...) a signal's payload needs, if any.

    None for a payload without our keys, and for a release key Heat's hook
    clear would be taken as (the engine treats an unknown release so):
    those stay under Heat's ``resource:signal`` alone. Any command key
    needs a rule: an unknown kind is authorized as ``set``, so that a
    caller without rights learns nothing about which kinds exist.
    """
    if not isinstance(details, dict):
        return None
    if protocol.COMMAND_KEY in details:
        kind = details[protocol.COMMAND_KEY]
        return _COMMANDS.get(kind, SET) if isinstance(kind, str) else SET
    how = details.get(protocol.SIGNAL_KEY)
    if isinstance(how, str):
        return _RELEASES.get(how)
    return None
