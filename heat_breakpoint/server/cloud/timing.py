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
"""``--realistic-times``: build times like a real cloud's.

By default the simulated cloud answers at once. With realistic times a
server takes tens of seconds to build and a port a second, drawn from a
range with a seed (the same run takes the same times), so parallel paths
and ``watch`` look as they will in production. A fault rule's ``delay``
replaces the time of the actions it matches. Each type's times are its
class's (``build_times``, :mod:`~heat_breakpoint.server.cloud.registry`).
"""

import random

from heat_breakpoint.server.cloud import registry


class Timing(object):
    """How long each simulated action takes, the same for the same seed."""

    def __init__(self, seed: int = 0):
        self.seed = seed

    def range_for(self, type_name: str, action: str) -> tuple:
        return registry.REGISTRY.build_time(type_name, action)

    def seconds(self, type_name: str, action: str, path: str) -> float:
        low, high = self.range_for(type_name, action)
        return low + (high - low) * random.Random('%s|%s|%s' % (
            self.seed, path, action)).random()
