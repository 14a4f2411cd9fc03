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
"""How long an operation has had something held: its pause clock.

By default time spent at a breakpoint does not count against the stack
timeout (:mod:`heat_breakpoint.engine.commands.deadlines` takes it
off). The clock is one row per operation: how many of its resources are
held now, the seconds held before, and since when the current pause
runs. A hold stops it (:func:`hold_started`), the release of the last
hold starts it again (:func:`hold_ended`); the row is read with the rest
of the operation's state (:func:`heat_breakpoint.db.operation_state.read`,
:meth:`~heat_breakpoint.model.operation_state.State.paused`).
"""

from oslo_utils import timeutils
import sqlalchemy as sa

from heat_breakpoint.db import tables

_pauses = tables.pauses


def _row(conn, key: tables.Key):
    return conn.execute(sa.select(_pauses).where(
        tables.where(_pauses, key)).with_for_update()).first()


@tables.retry_races
def hold_started(key: tables.Key) -> None:
    """One more resource of the operation is held (the clock stops)."""
    now = timeutils.utcnow()
    with tables.begin() as conn:
        row = _row(conn, key)
        if row is None:
            conn.execute(_pauses.insert().values(
                root_stack_id=key[0], traversal=key[1], held=1,
                paused_seconds=0.0, since=now))
        else:
            conn.execute(_pauses.update().where(
                tables.where(_pauses, key)).values(
                    held=row.held + 1,
                    since=row.since if row.held > 0 else now))


@tables.retry_races
def hold_ended(key: tables.Key) -> None:
    """One resource fewer is held; the clock runs again at zero."""
    now = timeutils.utcnow()
    with tables.begin() as conn:
        row = _row(conn, key)
        if row is None or row.held <= 0:
            return
        values = {'held': row.held - 1}
        if row.held == 1:
            values['paused_seconds'] = row.paused_seconds + (
                now - row.since).total_seconds()
            values['since'] = None
        conn.execute(_pauses.update().where(
            tables.where(_pauses, key)).values(**values))
