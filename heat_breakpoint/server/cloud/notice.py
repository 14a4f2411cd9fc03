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
cloud for the same run there.
"""

import collections
import functools

from oslo_log import log as logging

LOG = logging.getLogger(__name__)
OPERATIONS = {'create_stack': 'CREATE', 'update_stack': 'UPDATE'}


def describe(types, assumed) -> str:
    """The event's words: the simulated types, then the assumptions."""
    parts = []
    if types:
        parts.append('%s simulated' % ', '.join(
            '%d %s' % (count, kind) for kind, count in sorted(types.items())))
    if assumed:
        parts.append('assumed to exist: %s' % ', '.join(
            '%s %s' % (kind.replace('_', ' '), name)
            for kind, name in assumed))
    return 'Simulated cloud: %s' % '; '.join(parts)


def _announce(cnxt, identity, action, assumed) -> None:
    from heat.engine import stack as parser

    stack = parser.Stack.load(cnxt, stack_id=identity['stack_id'])
    types = collections.Counter(
        rsrc.type() for rsrc in stack.resources.values()
        if getattr(rsrc, 'simulated', False))
    if types or assumed:
        stack._add_event(action, stack.IN_PROGRESS,
                         describe(types, assumed))


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
