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

The manager is a facade over parts built here, each given in its
constructor what it uses: the reader (:class:`.viewing.Reader`, over the
stock listing it falls back on), the stored environment
(:class:`.stored_environment.StoredEnvironment`), the commands that
change a running operation (:class:`.commanding.Commands`, which read
through the reader) and launching or cancelling one
(:class:`.operating.Operations`, which release through the commands).
Each public call is one line handing over to its part. Front ends use
these calls only, and no heatclient call of their own.
"""

import time
import typing

from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import protocol
from heatclient_ext.v1 import commanding
from heatclient_ext.v1 import editing
from heatclient_ext.v1 import operating
from heatclient_ext.v1 import stock
from heatclient_ext.v1 import stored_environment
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

# ``list`` and ``set`` are methods of the manager: in its class body they
# shadow the builtins, so its annotations name the types by these.
_List = typing.List
_Say = typing.Callable[[str], None]


def _quiet(text: str) -> None:
    """Told nothing: the default of a ``say``."""


class BreakpointManager:
    """Breakpoints of stacks, over a heatclient v1 ``Client``.

    Through the breakpoints view where the server has it; the reader's
    stock listing (:class:`.stock.StockListing`) works them out from the
    stock API elsewhere.
    """

    def __init__(self, client) -> None:
        self.client = client
        self.listing = stock.StockListing(client)
        self.reading = viewing.Reader(client, self.listing)
        self.stored = stored_environment.StoredEnvironment(client)
        self.commands = commanding.Commands(client, self.reading,
                                            self.stored)
        self.operations = operating.Operations(client, self.reading,
                                               self.commands, self.stored)

    # -- reading (viewing.Reader) -------------------------------------------

    def get_stack(self, stack):
        return self.reading.get_stack(stack)

    def armed(self, stack_ident: str):
        return self.reading.armed(stack_ident)

    def view_body(self, stack, nested_depth=None, resource=None,
                  progress=False):
        return self.reading.view_body(stack, nested_depth, resource,
                                      progress)

    def latest_events(self, stack_ident: str, limit: int, depth=None):
        return self.reading.latest_events(stack_ident, limit, depth)

    def resource_summary(self, stack_ident: str, resource_name: str) -> dict:
        return self.reading.resource_summary(stack_ident, resource_name)

    def view(self, stack, nested_depth=None, resource=None, full=False):
        return self.reading.view(stack, nested_depth, resource, full)

    def describe(self, stack, name) -> typing.Optional[tuple]:
        return self.reading.describe(stack, name)

    def current(self, stack, nested_depth: typing.Optional[int] = None):
        return self.reading.current(stack, nested_depth)

    def list(self, stack, nested_depth: typing.Optional[int] = None):
        return self.reading.list(stack, nested_depth)

    def held_now(self, stack, nested_depth: typing.Optional[int] = None):
        return self.reading.held_now(stack, nested_depth)

    def show(self, stack, name, nested_depth: typing.Optional[int] = None):
        return self.reading.show(stack, name, nested_depth)

    def stock_show(self, stack, name, nested_depth=None) -> dict:
        return self.reading.stock_show(stack, name, nested_depth)

    def wait(self, stack, poll=5, sleep=time.sleep) -> tuple:
        return self.reading.wait(stack, poll, sleep)

    # -- the stock API's rows (stock.StockListing) --------------------------

    def resource_tree(self, stack_ident: str, depth):
        return self.listing.resource_tree(stack_ident, depth)

    @staticmethod
    def search_depth(armed, nested_depth: typing.Optional[int] = None):
        return stock.StockListing.search_depth(armed, nested_depth)

    def operation_start(self, stack):
        return self.listing.operation_start(stack)

    def timeout_remaining(self, stack) -> str:
        return self.listing.timeout_remaining(stack)

    def held(self, stack, armed, nested_depth=None, tree=None) -> _List:
        return self.listing.held(stack, armed, nested_depth, tree)

    def armed_rows(self, st, armed, held_rows) -> _List:
        return self.listing.armed_rows(st, armed, held_rows)

    def find_resource(self, stack_ident, name, armed, nested_depth=None):
        return self.listing.find_resource(stack_ident, name, armed,
                                          nested_depth)

    # -- commands (commanding.Commands) -------------------------------------

    def release(self, stack, name=None, how=protocol.RELEASE_CONTINUE,
                rows=None, extra=None) -> _List:
        return self.commands.release(stack, name, how, rows, extra)

    def continue_(self, stack, nested_depth=None, to=None) -> _List:
        return self.commands.continue_(stack, nested_depth, to)

    def command(self, stack, name, kind, when=breakpoints.BEFORE) -> None:
        self.commands.command(stack, name, kind, when)

    def set(self, stack, name, when=breakpoints.BEFORE,
            next_operation=terms.NEXT_OPERATION) -> str:
        return self.commands.set(stack, name, when, next_operation)

    def clear(self, stack, name, announce=None) -> tuple:
        return self.commands.clear(stack, name, announce)

    def step(self, stack, name=None) -> _List:
        return self.commands.step(stack, name)

    def exit_holds(self, stack, name, way) -> _List:
        return self.commands.exit_holds(stack, name, way)

    def take_exit(self, stack, name, way) -> _List:
        return self.commands.take_exit(stack, name, way)

    def retry(self, stack, name) -> _List:
        return self.commands.retry(stack, name)

    def retain(self, stack, name) -> _List:
        return self.commands.retain(stack, name)

    def edit(self, stack, edit: editing.Edit, say: _Say = _quiet) -> _List:
        """Apply a fix to the running operation; the rows held after.

        See :mod:`.editing`: the planned change is told through ``say``
        first; the new traversal holds again where the old one held.
        """
        return editing.Editor(self.reading).apply(stack, edit, say)

    # -- operations (operating.Operations) ----------------------------------

    def launch(self, action, stack, template=None, environment_files=(),
               parameters=None, existing=False, breakpoints_=(),
               say: _Say = _quiet) -> str:
        return self.operations.launch(
            action, stack, template, environment_files, parameters,
            existing, breakpoints_, say)

    def store_breakpoints(self, ident, breakpoints_, say: _Say = _quiet,
                          timeout: float = operating.STORE_TIMEOUT) -> None:
        self.operations.store_breakpoints(ident, breakpoints_, say, timeout)

    def cancel(self, stack, held=(), wait=terms.CANCEL_STOP_WAIT,
               sleep=time.sleep) -> tuple:
        return self.operations.cancel(stack, held, wait, sleep)

    # -- the stored environment (stored_environment.StoredEnvironment) ------

    def prepare_environment(self, env_paths, add=(), remove=(), stack=None,
                            existing=False, template_names=None,
                            extra_hooks=()):
        return self.stored.prepare(env_paths, add, remove, stack, existing,
                                   template_names, extra_hooks)

    def stored_breakpoints(self, stack) -> _List:
        return self.stored.stored_breakpoints(stack)

    def update_environment(self, stack_ident: str, add=(), remove=()) -> None:
        self.stored.update(stack_ident, add, remove)
