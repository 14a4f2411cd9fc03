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
"""The breakpoint API both CLIs call: one manager over a heatclient Client.

Listing is cheap on purpose. A Heat with heat-breakpoint answers
``GET /stacks/{stack}/breakpoints`` (what is held and armed, at any depth,
and with ``?resource=`` one resource in full) in one request; that is what
list, show, step, continue, set, clear and wait read, and the engine
decides with the same rules. Against a Heat without that view (stock
Heat, or an older plugin) the manager works it out from the stock API
(:mod:`heatclient_ext.v1.stock`).

The manager is three parts, one per concern: reading
(:class:`.viewing.Viewing`), the commands that change a running
operation (:class:`.commanding.Commanding`), and launching or cancelling
one (:class:`.operating.Operating`). Front ends use their public calls
only, and no heatclient call of their own.
"""

from heatclient_ext.v1 import commanding
from heatclient_ext.v1 import editing
from heatclient_ext.v1 import operating
from heatclient_ext.v1 import terms
from heatclient_ext.v1 import viewing

ARMED = terms.ARMED
HELD = terms.HELD
MASK = terms.MASK
COLUMNS = terms.COLUMNS
SHOW_KEYS = terms.SHOW_KEYS
DISARMED = terms.DISARMED
DONE = terms.DONE
WAITING = terms.WAITING
ALREADY_HELD = terms.ALREADY_HELD
CANCEL_ROLLBACK = terms.CANCEL_ROLLBACK
CANCEL_DELETE = terms.CANCEL_DELETE
CANCEL_STOP_WAIT = terms.CANCEL_STOP_WAIT
ALREADY_ARMED = terms.ALREADY_ARMED
ALREADY_DISARMED = terms.ALREADY_DISARMED
NEXT_OPERATION = terms.NEXT_OPERATION
ident = terms.ident
StackSummary = terms.StackSummary
row_value = terms.row_value
depth_argument = terms.depth_argument
held_text = terms.held_text
when_text = terms.when_text
update_note = terms.update_note


class BreakpointManager(viewing.Viewing, commanding.Commanding,
                        operating.Operating):
    """Breakpoints of stacks, over a heatclient v1 ``Client``.

    Through the breakpoints view where the server has it; the rest
    (:class:`.stock.StockListing`) works them out from the stock API.
    """

    def edit(self, stack, edit: editing.Edit, say=lambda text: None) -> list:
        """Apply a fix to the running operation; the rows held after.

        See :mod:`.editing`: the planned change is told through ``say``
        first; the new traversal holds again where the old one held.
        """
        return editing.Editor(self).apply(stack, edit, say)
