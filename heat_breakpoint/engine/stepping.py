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
"""Where a step goes next: the resources that wait for the released one.

For a create or update, the resources that require it in the same
operation; for a delete (the graph walked backwards), the resources it
requires. Stepping from a nested stack resource before its create or
update steps *into* it (its first resources hold next); stepping past the
last resource of a nested stack goes on to the parent stack's next ones.
"""

from heat.engine import stack as parser
from heat.objects import resource as resource_objects

from heat_breakpoint.engine import decision
from heat_breakpoint.engine import operations


def _is_nested_stack(rsrc) -> bool:
    from heat.engine.resources import stack_resource
    return isinstance(rsrc, stack_resource.StackResource)


def next_resources(rsrc, action: str, into: bool = True) -> list:
    """Where a step from ``rsrc`` holds next, as ``(path, kind)`` pairs.

    ``into`` False: ``rsrc`` is done (held after its action), so a nested
    stack is not stepped into.
    """
    path = decision.resource_path(rsrc)
    if into and action != 'DELETE' and _is_nested_stack(rsrc):
        return [('/'.join(path), operations.STEP_INTO)]
    names = _waiting_on(rsrc, action)
    stack = rsrc.stack
    while not names and stack.owner_id:
        path = path[:-1]
        parent = parser.Stack.load(rsrc.context, stack_id=stack.owner_id,
                                   force_reload=True)
        outer = parent.resource_get(stack.parent_resource_name)
        if outer is None:
            break
        names, stack = _waiting_on(outer, action), parent
    return [('/'.join(path[:-1] + (name,)), operations.STEP)
            for name in sorted(names)]


def _waiting_on(rsrc, action: str) -> list:
    if action == 'DELETE':
        # A stack being deleted has an empty template: ask the database.
        by_id = {r.id: name for name, r in
                 resource_objects.Resource.get_all_by_stack(
                     rsrc.context, rsrc.stack.id).items()}
        return [by_id[i] for i in rsrc.requires if i in by_id]
    return [r.name for r in rsrc.stack.dependencies.required_by(rsrc)]
