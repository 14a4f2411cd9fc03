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
"""Which resources wait at one of Heat's own hooks, each on a thread.

A breakpoint's hold is a row (it holds no thread and survives a
restart), but Heat's native hook (``--pre-create`` and its kind, or any
hook with ``[breakpoint] enabled = false``) waits in an engine thread
until it is cleared. Stopping the local server need not wait for those
threads: they return only when someone clears the hook, and Heat marks
their operations failed on the next start either way.
"""

from oslo_db import exception as db_exception
import sqlalchemy as sa

#: What :func:`held` raises when the database cannot answer.
DB_ERRORS = (db_exception.DBError, sa.exc.SQLAlchemyError)


def held(limit: int = 5) -> tuple:
    """(how many, up to ``limit`` of ``stack/resource (hook)``)."""
    from heat.db import api as db_api
    from heat.db import models
    from heat.engine import environment

    from heat_breakpoint.db import resource_data
    data = models.ResourceData
    ours = sa.select(data.resource_id).where(
        data.key == resource_data.HOLD_KEY)
    query = sa.select(models.Stack.name, models.Resource.name,
                      data.key).select_from(data).join(
        models.Resource, data.resource_id == models.Resource.id).join(
        models.Stack, models.Resource.stack_id == models.Stack.id).where(
        data.key.in_(environment.HOOK_TYPES), data.value == 'True',
        models.Stack.status == 'IN_PROGRESS',
        models.Stack.deleted_at.is_(None),
        data.resource_id.not_in(ours)).order_by(data.id)
    with db_api.get_engine().connect() as conn:
        rows = list(conn.execute(query))
    return len(rows), ['%s/%s (%s)' % tuple(row) for row in rows[:limit]]
