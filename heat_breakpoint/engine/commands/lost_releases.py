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
"""A release whose heat-engine died before it sent the check on.

A release claims its hold (the resource is put back as it was), then
re-dispatches the parked check through Heat's worker RPC
(:mod:`releases`). In between nothing is held and nothing runs: a
heat-engine killed there, or a release cut off by a database error,
would leave the stack waiting as stock Heat waits for a check lost with
its engine. So the claim writes, in its own transaction, a marker
naming the traversal and the heat-engine that claimed
(``breakpoint_sending``). The release deletes it once the check is sent;
the check deletes it when it arrives (:func:`hold_records.arrived`).

Every heat-engine looks for markers now and then (:func:`watch`). One
is lost when the engine that wrote it did not answer Heat's own
liveness call (``listening``, as for a stack lock) on two looks in a
row, or when it is older than any release takes (:data:`STUCK_SECONDS`,
a release that failed half-way in an engine still alive). The
resource must be unlocked, its stack still on the marker's traversal.
The engine that writes itself into the marker sends the check again
(and deletes the marker once it is sent), with the stack's stored
credentials (:func:`credentials.operation_context`), as Heat continues
a user's operation without the user; the check then goes on as any
released check (a cancel asked meanwhile still wins:
:func:`parking.end_if_cancelled`). The release's event was written
with its claim: a release is counted once, whoever finished it. What a
cut-off ``step`` or ``continue`` asked for the rest of the operation
(the next holds, the end of holds) may be lost with its engine, as a
request that dies unanswered: the breakpoints hold as they were.
"""

import datetime
import json
import threading
import time

from oslo_log import log as logging
from oslo_utils import timeutils
import sqlalchemy as sa

from heat_breakpoint.db import resource_data
from heat_breakpoint.db import tables
from heat_breakpoint.engine.commands import credentials

LOG = logging.getLogger(__name__)

#: How often each heat-engine looks for lost releases.
SCAN_SECONDS = 5.0
#: A marker younger than this is left alone: its check may be on its way.
GRACE_SECONDS = 5.0
#: A marker older than this is lost whoever wrote it.
STUCK_SECONDS = 60.0

# The heat-engine of this process (EngineService.engine_id), once it runs.
_engine_id = None


def marker(traversal: str) -> str:
    """What the claim of a release writes (``resource_data.SENDING_KEY``)."""
    return json.dumps({'traversal': traversal, 'engine_id': _engine_id,
                       'since': timeutils.utcnow().isoformat()})


def sent(rsrc) -> None:
    """The release sent its check (or decided not to): drop the marker."""
    rsrc.data_delete(resource_data.SENDING_KEY)


def watch(engine_id: str) -> None:
    """In a heat-engine, send again the checks of lost releases."""
    global _engine_id
    _engine_id = engine_id
    threading.Thread(target=_watch, name='breakpoint-lost-releases',
                     daemon=True).start()


def _watch() -> None:
    scan = Scan(_engine_id)
    down = False
    while True:
        time.sleep(SCAN_SECONDS)
        try:
            scan.once()
        except Exception as exc:
            if not database_down(exc):
                LOG.exception('Could not look for releases cut off before '
                              'their check was sent')
            elif not down:
                # Once per outage, without a traceback: nothing is wrong
                # here, the next look goes on.
                LOG.warning('Cannot look for releases cut off before their '
                            'check was sent: heat-engine cannot reach its '
                            'database (%s); looking again every %d s',
                            type(exc).__name__, SCAN_SECONDS)
            down = down or database_down(exc)
            continue
        if down:
            LOG.info('Looking for releases cut off before their check was '
                     'sent again: the database is back')
            down = False


def database_down(exc) -> bool:
    """Did ``exc`` come of a database that cannot be reached?"""
    from oslo_db import exception as db_exc
    return (isinstance(exc, (db_exc.DBConnectionError,
                             sa.exc.OperationalError)) or
            (isinstance(exc, sa.exc.DBAPIError) and
             exc.connection_invalidated))


class Scan(object):
    """The looks of one heat-engine, and who did not answer last time."""

    def __init__(self, engine_id, alive=None, now=timeutils.utcnow):
        self.engine_id = engine_id
        self._alive = alive or _engine_alive
        self._now = now
        self._unanswered = set()  # markers whose engine did not answer

    def once(self) -> int:
        """Look once; how many checks were sent again."""
        resent = 0
        answers = {}
        unanswered = set()
        for row in _markers():
            verdict = self._lost(row, answers)
            if verdict is None:
                continue
            if verdict is False:
                unanswered.add(row.data_id)
            elif _send_again(row):
                resent += 1
        self._unanswered = unanswered
        return resent

    def _lost(self, row, answers):
        """True: lost; False: its engine did not answer yet; None: not."""
        note = _note(row.value)
        if note is None or row.locked_by:
            return None
        age = (self._now() - note['since']).total_seconds()
        if age >= STUCK_SECONDS:
            return True
        claimant = note.get('engine_id')
        if (age < GRACE_SECONDS or not claimant or
                claimant == self.engine_id):
            return None
        if claimant not in answers:
            answers[claimant] = self._alive(claimant)
        if answers[claimant]:
            return None
        return row.data_id in self._unanswered


def _note(raw):
    try:
        note = json.loads(raw)
        note['since'] = datetime.datetime.fromisoformat(note['since'])
        note['traversal']
    except (TypeError, ValueError, KeyError):
        return None
    return note


def _engine_alive(engine_id) -> bool:
    from heat.common import context as heat_context
    from heat.common import service_utils
    return service_utils.engine_alive(heat_context.get_admin_context(),
                                      engine_id)


def _markers() -> list:
    """The markers there are, with their resource's stack and lock.

    Looked for among the resources of operations that held something
    (a marker is written by the release of a hold, and the operation's
    pause row outlives it): indexed lookups from our small table, not a
    scan of every resource's data.
    """
    from heat.db import api as db_api
    from heat.db import models
    data = models.ResourceData
    held = sa.select(tables.pauses.c.root_stack_id).distinct()
    query = sa.select(
        data.id.label('data_id'), data.value.label('value'),
        models.Resource.id.label('resource_id'),
        models.Resource.stack_id.label('stack_id'),
        models.Resource.engine_id.label('locked_by')).join(
            models.Resource, data.resource_id == models.Resource.id).where(
                models.Resource.root_stack_id.in_(held),
                data.key == resource_data.SENDING_KEY)
    with db_api.get_engine().connect() as conn:
        return list(conn.execute(query))


def _take_over(row, note):
    """Write this engine into the marker; the new value, or None.

    Of engines looking at once one writes it (the others find another
    value); dying before it sent the check, it leaves a marker that
    names a dead engine, for the next look.
    """
    from heat.db import api as db_api
    from heat.db import models
    value = json.dumps(dict(note, engine_id=_engine_id,
                            since=timeutils.utcnow().isoformat()))
    data = models.ResourceData
    with db_api.get_engine().begin() as conn:
        taken = conn.execute(sa.update(data).where(
            data.id == row.data_id, data.value == row.value).values(
                value=value)).rowcount == 1
    return value if taken else None


def _done(row, value) -> None:
    from heat.db import api as db_api
    from heat.db import models
    data = models.ResourceData
    with db_api.get_engine().begin() as conn:
        conn.execute(sa.delete(data).where(data.id == row.data_id,
                                           data.value == value))


def _send_again(row) -> bool:
    from heat.common import context as heat_context
    from heat.engine import check_resource
    from heat.engine import stack as parser
    from heat.rpc import worker_client

    note = _note(row.value)
    stack = parser.Stack.load(heat_context.get_admin_context(),
                              stack_id=row.stack_id, force_reload=True)
    if (stack.current_traversal != note['traversal'] or
            stack.status != stack.IN_PROGRESS):
        return False  # purged with its operation
    value = _take_over(row, note)
    if value is None:
        return False  # another engine sends it
    LOG.warning('Sending again the check of resource %s (stack %s), '
                'released by heat-engine %s, which did not send it',
                row.resource_id, stack.name, note.get('engine_id'))
    checker = check_resource.CheckResource(
        None, worker_client.WorkerClient(), None, None, {})
    checker.retrigger_check_resource(
        credentials.operation_context(stack),
        row.resource_id, stack)
    _done(row, value)
    return True
