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
"""When the operation a debug session drives has ended.

From the stack's status at each refresh: a status that is no longer
``_IN_PROGRESS`` ends it, once the operation was seen running or its own
action reads done; not while a cancel's rollback (or a create's delete)
has yet to begin, nor while Heat is about to roll a failure back.
"""

import time
import typing

from heatclient_ext.v1 import live

# After a cancel, how long the rollback may take to begin.
EXPECT_TIMEOUT = 60
# How long an update may still read its stack's old COMPLETE.
OLD_STATUS_SECONDS = 5


class OperationEnd:
    """What the session launched or attached to, and when it ended."""

    def __init__(self, get_stack) -> None:
        #: create, update or delete (None: attached to a running one).
        self.action: typing.Optional[str] = None
        self.started_at: typing.Optional[float] = None
        self.seen_running = False
        # After a cancel: the status prefix that ends the session
        # (ROLLBACK for an update, DELETE for a create), and since when.
        self.expect: typing.Optional[str] = None
        self.expect_since = 0.0
        self.rollback = live.RollbackAhead(get_stack)

    def started(self) -> None:
        self.started_at = time.monotonic()

    def cancelled(self, status: str) -> None:
        """A cancel was sent while the stack read ``status``."""
        self.expect_since = time.monotonic()
        self.expect = 'ROLLBACK' if status.startswith('UPDATE') else 'DELETE'

    def ended(self, stack: str, status: str) -> bool:
        """Whether the operation ended, the stack reading ``status``."""
        if status.endswith('_IN_PROGRESS'):
            self.seen_running = True
            return False
        if self.expect and not status.startswith(self.expect) and \
                time.monotonic() - self.expect_since < EXPECT_TIMEOUT:
            return False  # the cancel's rollback has not begun yet
        if self.seen_running and self.rollback.pending(stack, status):
            return False  # a failure Heat is about to roll back
        return self.seen_running or self._action_done(status)

    def _action_done(self, status: str) -> bool:
        # An update may read the old COMPLETE for a moment after it was
        # sent; its own action's end, after a few seconds, says it is done.
        if self.action is None or self.action == 'delete':
            return False
        return status.startswith(self.action.upper() + '_') and (
            time.monotonic() - (self.started_at or 0) > OLD_STATUS_SECONDS)
