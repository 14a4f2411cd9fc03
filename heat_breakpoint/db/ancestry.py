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
"""A nested stack's way up to its root stack, in one query.

Every check of a nested stack with breakpoints needs the names of the
resources leading to it from the root stack (its breakpoints are named
``outer/inner``) and the root operation (our rows are keyed by it).
Walking up with Heat's objects costs a query per level, each through
Heat's engine; this asks the database once, through the plain read pool
(:mod:`heat_breakpoint.db.reader`), with a recursive query (SQLite,
MySQL 8, MariaDB 10.2 and later). Where that fails, callers walk up with
Heat's objects.
"""

from oslo_log import log as logging
import sqlalchemy as sa

from heat_breakpoint.db import reader

LOG = logging.getLogger(__name__)

_QUERY = sa.text(
    'WITH RECURSIVE up(depth, id, owner_id, parent_resource_name, '
    'current_traversal, action) AS ('
    ' SELECT 0, id, owner_id, parent_resource_name, current_traversal,'
    ' action FROM stack WHERE id = :owner'
    ' UNION ALL SELECT up.depth + 1, s.id, s.owner_id,'
    ' s.parent_resource_name, s.current_traversal, s.action'
    ' FROM stack s JOIN up ON s.id = up.owner_id)'
    ' SELECT depth, id, owner_id, parent_resource_name, current_traversal,'
    ' action FROM up ORDER BY depth')


def walk(stack):
    """(path names, root id, root traversal, root action), or None.

    A check needs the root operation (our rows are keyed by it) and the
    path (breakpoints are named by it); both come from this one query,
    which :mod:`heat_breakpoint.engine.check.facts` makes once per check.
    ``stack``: what it reads of a Heat stack (``id``, ``owner_id``,
    ``parent_resource_name``).
    """
    try:
        from heat.db import api as db_api
        rows = reader.read(db_api.get_engine(), _QUERY,
                           {'owner': stack.owner_id})
    except Exception as exc:
        LOG.debug('Walking up from stack %s the slow way: %s', stack.id,
                  exc)
        return None
    if not rows or rows[-1].owner_id is not None:
        return None
    names = [stack.parent_resource_name or '']
    names += [row.parent_resource_name or '' for row in rows[:-1]]
    return (tuple(reversed(names)), rows[-1].id, rows[-1].current_traversal,
            rows[-1].action)
