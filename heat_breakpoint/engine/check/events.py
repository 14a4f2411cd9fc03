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
"""The events a hold writes, and Heat's resource events with secrets masked.

Stock Heat shows an event's resource properties resolved, hidden
parameters included. On a stack being debugged with breakpoints the
events are what users read, so there the properties are masked.
"""

from heat.engine import event as heat_event
from heat.objects import resource_properties_data as rpd_objects

from heat_breakpoint.engine.check import facts
from heat_breakpoint.engine import heat_internals
from heat_breakpoint.engine.masking import inputs


def store_details(rsrc, details) -> int:
    """Store an event's details ahead of it; returns their id."""
    return rpd_objects.ResourcePropertiesData.create(rsrc.context,
                                                     details).id


def record(rsrc, reason, details=None, action=None, status=None,
           rpd_id=None):
    """Store an event of ``rsrc`` (its current state unless given).

    Returns the id of the stored ``details`` (None without details);
    ``rpd_id``: details stored already (:func:`store_details`).
    """
    if details is not None and rpd_id is None:
        rpd_id = store_details(rsrc, details)
    physical_id = rsrc.resource_id or rsrc.physical_resource_name()
    ev = heat_event.Event(rsrc.context, rsrc.stack, action or rsrc.action,
                          status or rsrc.status, reason, physical_id, rpd_id,
                          details, rsrc.name, rsrc.type())
    ev.store()
    _dispatch(rsrc.stack, ev)
    return rpd_id


def _dispatch(stack, ev) -> None:
    """To the stack's event sinks, as Heat does: a thread per event.

    Without sinks that thread does nothing; a hold (two events) in a
    burst of 55 need not start it.
    """
    if stack.env.get_event_sinks():
        stack.dispatch_event(ev)


def add_event(rsrc, action, status, reason, stock_add_event) -> None:
    """Heat's resource event, with hidden parameter values masked."""
    props = heat_internals.stored_properties(rsrc)
    if props and facts.own_breakpoints(rsrc.stack):
        masked = inputs.mask(props, inputs.hidden_values(rsrc.stack))
        if masked is not props and masked != props:
            record(rsrc, reason, masked, action, status)
            return
    stock_add_event(rsrc, action, status, reason)


def record_stack(stack, reason) -> None:
    """Store an event of the stack itself (what a command changed)."""
    ev = heat_event.Event(stack.context, stack, stack.action, stack.status,
                          reason, stack.id, None, None, stack.name,
                          'OS::Heat::Stack')
    ev.store()
    _dispatch(stack, ev)
