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
"""Reading an environment's native hooks as Heat would, by hand.

Tests of what writes the hooks read them back without the product's own
reader, so that a reader and a writer wrong the same way do not agree.
"""


def hooks_at(env, *segments):
    """The ``hooks`` of the registry entry at SEGMENTS (nested names)."""
    node = env['resource_registry']['resources']
    for segment in segments:
        node = node[segment]
    return node['hooks']
