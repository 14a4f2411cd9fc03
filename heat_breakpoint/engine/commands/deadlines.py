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
"""The stack's clock while something is held.

By default time held at breakpoints does not count against the stack
timeout: :func:`time_elapsed` takes it off Heat's own count. When it does
count (``[breakpoint] pause_counts_against_timeout``), nothing runs for a
parked hold, so every engine looks, now and then, for holds in the
database whose stack has timed out; which engine parked them does not
matter, and one that died leaves nothing behind.
"""

import threading
import time

from oslo_config import cfg
from oslo_log import log as logging
import sqlalchemy as sa

from heat.engine import stack as parser

from heat_breakpoint.db import pause_clock
from heat_breakpoint.db import resource_data
from heat_breakpoint.engine.check import events
from heat_breakpoint.engine.check import facts
from heat_breakpoint.engine.check import hold_records
from heat_breakpoint.model import protocol
from heat_breakpoint.model import reasons

LOG = logging.getLogger(__name__)

DEADLINE_SCAN_SECONDS = 2.0


def time_elapsed(stack, elapsed: float) -> float:
    """The operation's elapsed time, less its time held at breakpoints.

    Heat asks at the start of every check (timed out? time left?): the
    operation's state read here serves the check too (:mod:`facts`).
    """
    if not stack.convergence:
        return elapsed
    held = facts.time_held(stack)
    return elapsed - held if held else elapsed


def watch_deadlines() -> None:
    """In a heat-engine, fail held stacks whose timeout has run out."""
    if not (facts.enabled() and
            cfg.CONF.breakpoint.pause_counts_against_timeout):
        return
    watcher = threading.Thread(target=_watch, name='breakpoint-deadlines',
                               daemon=True)
    watcher.start()


def _watch() -> None:
    while True:
        time.sleep(DEADLINE_SCAN_SECONDS)
        try:
            for stack_id, resource_id in _parked():
                _expire(stack_id, resource_id)
        except Exception:
            LOG.exception('Could not look for held stacks past their '
                          'deadline')


def _parked() -> list:
    from heat.db import api as db_api
    from heat.db import models
    query = sa.select(models.Resource.stack_id, models.Resource.id).join(
        models.ResourceData,
        models.ResourceData.resource_id == models.Resource.id).where(
            models.ResourceData.key == resource_data.HOLD_KEY)
    with db_api.get_engine().connect() as conn:
        return [tuple(row) for row in conn.execute(query)]


def _expire(stack_id, resource_id) -> None:
    from heat.common import context as heat_context
    from heat.engine import resource as heat_resource
    cnxt = heat_context.get_admin_context()
    try:
        stack = parser.Stack.load(cnxt, stack_id=stack_id,
                                  force_reload=True)
        if not stack.has_timed_out():
            return
        # The resource refers to its stack weakly: keep the stack alive.
        rsrc, _defn, rsrc_stack = heat_resource.Resource.load(
            cnxt, resource_id, stack.current_traversal, True, {})
        record = hold_records.record_of(rsrc)
        if (record is None or 'traversal' not in record or
                not hold_records.forget(rsrc, record)):
            return
        rsrc.clear_hook(record['hook'])
        pause_clock.hold_ended(facts.place(stack).key)
        events.record(rsrc, reasons.released(record['breakpoint'],
                                             protocol.RELEASE_TIMEOUT))
        stack.mark_failed('Timed out')
    except Exception:
        LOG.exception('Could not time out held stack %s', stack_id)
