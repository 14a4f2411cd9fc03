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
replaces the time of the actions it matches.
"""

import random

# (type, action) -> (low, high) seconds; ('*', action) for the others.
TIMES = {
    ('OS::Nova::Server', 'CREATE'): (20.0, 40.0),
    ('AWS::EC2::Instance', 'CREATE'): (20.0, 40.0),
    ('OS::Nova::Server', 'DELETE'): (5.0, 10.0),
    ('AWS::EC2::Instance', 'DELETE'): (5.0, 10.0),
    ('OS::Nova::Server', 'UPDATE'): (10.0, 30.0),
    ('OS::Cinder::Volume', 'CREATE'): (5.0, 10.0),
    ('AWS::EC2::Volume', 'CREATE'): (5.0, 10.0),
    ('OS::Cinder::VolumeAttachment', 'CREATE'): (3.0, 6.0),
    ('AWS::EC2::VolumeAttachment', 'CREATE'): (3.0, 6.0),
    ('OS::Neutron::Router', 'CREATE'): (2.0, 4.0),
    ('OS::Neutron::RouterInterface', 'CREATE'): (1.5, 3.0),
    ('OS::Neutron::FloatingIP', 'CREATE'): (1.0, 3.0),
    ('OS::Neutron::Port', 'CREATE'): (1.0, 1.5),
    ('OS::Octavia::LoadBalancer', 'CREATE'): (60.0, 120.0),
    ('*', 'CREATE'): (0.5, 1.5),
    ('*', 'UPDATE'): (0.5, 1.5),
    ('*', 'DELETE'): (0.5, 1.0),
    ('*', '*'): (0.2, 0.5),
}


class Timing(object):
    """How long each simulated action takes, the same for the same seed."""

    def __init__(self, seed: int = 0):
        self.seed = seed

    def range_for(self, type_name: str, action: str) -> tuple:
        for key in ((type_name, action), ('*', action), ('*', '*')):
            if key in TIMES:
                return TIMES[key]

    def seconds(self, type_name: str, action: str, path: str) -> float:
        low, high = self.range_for(type_name, action)
        return low + (high - low) * random.Random('%s|%s|%s' % (
            self.seed, path, action)).random()
