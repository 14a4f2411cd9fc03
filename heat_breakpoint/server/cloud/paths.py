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
"""Where a simulated resource is: its stack's path and its own.

Fault rules and realistic times name a resource as breakpoints do (the
path through nested stacks); a server's agents and a resource's actions
both ask, so it is a module of its own, which imports no simulated type.
"""

import re

_SHORT_ID = re.compile(r'-[a-z2-7]{12}(?=-|$)')


def stack_path(stack) -> str:
    """The stack's name with the random parts of nested names taken out."""
    return _SHORT_ID.sub('', stack.name or '')


def resource_path(cnxt, stack_id: str, name: str) -> tuple:
    """``(root stack ID, 'outer/inner/name')``: where the resource is.

    The path as breakpoints name it: the names of the resources whose
    nested stacks lead to it (read from Heat's stack rows).
    """
    from heat.db import api as db_api
    names = [name]
    while stack_id:
        row = db_api.stack_get(cnxt, stack_id, show_deleted=True,
                               eager_load=False)
        if row is None or not row.owner_id:
            break
        names.insert(0, row.parent_resource_name or '')
        stack_id = row.owner_id
    return stack_id, '/'.join(names)
