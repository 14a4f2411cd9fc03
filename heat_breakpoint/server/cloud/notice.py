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
"""A stack's second event says what of it is simulated and assumed.

A template author reading ``stack event list`` sees, right after ``Stack
CREATE started``, which of the stack's resources the simulated cloud
runs and which names it assumed exist (a flavor, an image, a key pair
nobody listed with ``--cloud``): what would have to be true of the real
cloud for the same run there. Heat keeps 255 characters of an event's
reason: a longer notice is several events, each within the limit, so
that no name is lost (the server log has it whole too).
"""

import collections
import functools

from oslo_log import log as logging

LOG = logging.getLogger(__name__)
OPERATIONS = {'create_stack': 'CREATE', 'update_stack': 'UPDATE'}


# What Heat keeps of an event's reason (its column; the rest is cut).
REASON_LIMIT = 255
PREFIX = 'Simulated cloud: '
MORE = 'Simulated cloud (continued): '


def _type_items(types) -> list:
    return ['%d %s' % (count, kind) for kind, count in sorted(types.items())]


def _assumed_items(assumed) -> list:
    return ['%s %s' % (kind.replace('_', ' '), name)
            for kind, name in assumed]


def describe(types, assumed) -> str:
    """The notice's words whole: the simulated types, then the assumptions."""
    parts = []
    if types:
        parts.append('%s simulated' % ', '.join(_type_items(types)))
    if assumed:
        parts.append('assumed to exist: %s' % ', '.join(
            _assumed_items(assumed)))
    return PREFIX + '; '.join(parts)


def _pack(head, items, limit) -> list:
    """``items`` after ``head``, then after :data:`MORE`, within ``limit``.

    An item longer than a whole event (a name of hundreds of characters)
    is cut there: the server log has it whole.
    """
    lines, line, lead = [], '', head
    for item in items:
        joined = item if not line else line + ', ' + item
        if line and len(lead + joined) > limit:
            lines.append(lead + line)
            lead, joined = MORE + head[len(PREFIX):], item
        line = joined
    if line or not lines:
        lines.append(lead + line)
    return [text if len(text) <= limit else text[:limit - 3] + '...'
            for text in lines]


def reasons(types, assumed, limit: int = REASON_LIMIT) -> list:
    """The notice as event reasons, each within ``limit`` characters.

    One event as before when it fits; else the simulated types, then the
    assumed names, each in as few events as they fit in.
    """
    whole = describe(types, assumed)
    if len(whole) <= limit:
        return [whole]
    found = []
    if types:
        alone = describe(types, ())
        found += [alone] if len(alone) <= limit else _pack(
            PREFIX + 'simulated: ', _type_items(types), limit)
    if assumed:
        found += _pack(PREFIX + 'assumed to exist: ',
                       _assumed_items(assumed), limit)
    return found


def _announce(cnxt, identity, action, assumed) -> None:
    from heat.engine import stack as parser

    stack = parser.Stack.load(cnxt, stack_id=identity['stack_id'])
    types = collections.Counter(
        rsrc.type() for rsrc in stack.resources.values()
        if getattr(rsrc, 'simulated', False))
    if types or assumed:
        LOG.info('Stack %s: %s', stack.name, describe(types, assumed))
        for reason in reasons(types, assumed):
            stack._add_event(action, stack.IN_PROGRESS, reason)


def _announcing(inventory, method, action):
    @functools.wraps(method)
    def wrapper(self, cnxt, *args, **kwargs):
        with inventory.noting_assumptions() as assumed:
            identity = method(self, cnxt, *args, **kwargs)
        try:
            _announce(cnxt, identity, action, assumed)
        except Exception:
            LOG.exception('could not say what is simulated in %s', identity)
        return identity
    wrapper.simulated = True
    return wrapper


def install(cloud) -> None:
    from heat.engine import service

    for name, action in OPERATIONS.items():
        method = getattr(service.EngineService, name)
        if not getattr(method, 'simulated', False):
            setattr(service.EngineService, name,
                    _announcing(cloud.inventory, method, action))
