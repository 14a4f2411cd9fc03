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

A step is one resource signal: Heat checks it (where
:func:`releases.check_release` makes sure the step leaves room for its
targets) and then releases the hold (where :func:`releases.release` arms
them). Where it goes is
worked out once, at the check (:func:`plan`), and taken at the release
(:func:`planned`).
"""

import contextvars
import typing
import weakref

from heat.engine import stack as parser
from heat.objects import resource as resource_objects

from heat_breakpoint.engine.check import facts
from heat_breakpoint.model import target_kinds

# The step this thread's signal planned: (a weak reference to the
# resource object, action, into, the next resources).
# ContextVar: Heat checks the signal, then clears its hook: two calls.
_planned = contextvars.ContextVar('breakpoint_step', default=None)


def _is_nested_stack(rsrc) -> bool:
    from heat.engine.resources import stack_resource
    return isinstance(rsrc, stack_resource.StackResource)


def next_resources(rsrc, action: str, into: bool = True,
                   path: typing.Optional[tuple] = None) -> list:
    """Where a step from ``rsrc`` holds next, as ``(path, kind)`` pairs.

    ``into`` False: ``rsrc`` is done (held after its action), so a nested
    stack is not stepped into. ``path``: the resource's from the root
    stack, when the caller knows it already.
    """
    if path is None:
        path = facts.resource_path(rsrc)
    if into and action != 'DELETE' and _is_nested_stack(rsrc):
        return [('/'.join(path), target_kinds.STEP_INTO)]
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
    return [('/'.join(path[:-1] + (name,)), target_kinds.STEP)
            for name in sorted(names)]


def plan(rsrc, action: str, into: bool = True) -> list:
    """:func:`next_resources`, kept for the release of the same signal."""
    found = next_resources(rsrc, action, into)
    _planned.set((weakref.ref(rsrc), action, into, found))
    return found


def planned(rsrc, action: str, into: bool = True,
            path: typing.Optional[tuple] = None) -> list:
    """Where the step of this signal goes.

    As the signal's check planned it, or worked out now when it did not
    (``path``: as for :func:`next_resources`).
    """
    kept = _planned.get()
    _planned.set(None)
    if kept is not None and kept[0]() is rsrc and kept[1:3] == (action,
                                                                into):
        return kept[3]
    return next_resources(rsrc, action, into, path)


def _waiting_on(rsrc, action: str) -> list:
    if action == 'DELETE':
        # A stack being deleted has an empty template: ask the database.
        by_id = {r.id: name for name, r in
                 resource_objects.Resource.get_all_by_stack(
                     rsrc.context, rsrc.stack.id).items()}
        return [by_id[i] for i in rsrc.requires if i in by_id]
    return [r.name for r in rsrc.stack.dependencies.required_by(rsrc)]
