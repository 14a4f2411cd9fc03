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
"""What was said during a running operation, as a value: no database.

The engine stores an operation's mode, its targets and its pause clock
in three tables (:mod:`heat_breakpoint.db.operation_state` reads them in
one query); what it read is a :class:`State`, which the decision reads
without Heat or the database (the kinds themselves:
:mod:`.target_kinds`).
"""

import dataclasses
import datetime
import typing


def target_items(targets: dict):
    """``(path, kind)`` of every target, in path order.

    ``targets`` as :class:`State` has them: a path's kind, or a tuple of
    its kinds when it has targets for more than one ``when``.
    """
    for path, kinds in sorted(targets.items()):
        if isinstance(kinds, str):
            yield path, kinds
        else:
            for kind in sorted(kinds):
                yield path, kind


def _utcnow() -> datetime.datetime:
    """The time now, in UTC without a zone, as the clock's rows store it."""
    return datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)


@dataclasses.dataclass(frozen=True)
class State:
    """What is recorded for one running operation.

    ``targets``: each path's kind, or a tuple of its kinds when it has a
    target for more than one ``when`` (:func:`target_items` reads both).
    """

    mode: typing.Optional[str] = None
    targets: dict = dataclasses.field(default_factory=dict)
    held: int = 0
    paused_seconds: float = 0.0
    since: typing.Optional[datetime.datetime] = None

    def paused(self, clock: typing.Optional[
            typing.Callable[[], datetime.datetime]] = None) -> float:
        """How long the operation has had something held, until now.

        ``clock``: what tells the time now (naive UTC), read only while
        something is held; by default the standard library's. The engine
        passes oslo.utils' ``utcnow``, which Heat's tests may set.
        """
        total = self.paused_seconds
        if self.held > 0 and self.since is not None:
            total += ((clock or _utcnow)() - self.since).total_seconds()
        return total
