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
"""``--no-leaf-sleep``: start a stack's independent resources at once.

Heat's convergence engine sends the check of each resource that depends
on nothing (a leaf of the graph), then sleeps one second before the next
(``Stack._converge_create_or_update``): in a cloud, the checks spread
over several heat-engines that way. A stack of twenty independent
servers waits twenty seconds before the last one starts. The local
server is one process, where all checks land in one engine anyway; with
this option it sends them without the pause. Only that one-second sleep
goes: every other wait of Heat (polling a resource, a stack lock) stays.
"""

import inspect
import time

from oslo_log import log as logging

LOG = logging.getLogger(__name__)
LEAF_SLEEP = 'time.sleep(1)'


class _NoLeafSleep(object):
    """The ``time`` module as heat.engine.stack sees it, minus that sleep."""

    def __getattr__(self, name):
        return getattr(time, name)

    @staticmethod
    def sleep(seconds):
        if seconds != 1:
            time.sleep(seconds)


def install() -> bool:
    """Drop the leaf sleep; False (and Heat untouched) if it moved."""
    from heat.engine import stack

    source = inspect.getsource(stack.Stack._converge_create_or_update)
    if LEAF_SLEEP not in source or inspect.getsource(stack).count(
            LEAF_SLEEP) != 1:
        LOG.warning('--no-leaf-sleep: this Heat paces its leaves in a way '
                    'the local server does not know; it keeps its pace')
        return False
    stack.time = _NoLeafSleep()
    return True
