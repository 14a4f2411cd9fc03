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
"""Nothing of ours outlives the operation it was written for.

What our tables record (:mod:`heat_breakpoint.db.tables`) and the notes
a hold or a release leaves in a resource's data
(:data:`heat_breakpoint.db.resource_data.NOTE_KEYS`) are only of use while
the root stack's traversal they name is running. They go:

* when the root stack's operation ends (COMPLETE or FAILED, a cancel
  included; a stack delete ends as DELETE_COMPLETE): every row of that
  root stack, through :func:`operation_ended`, called by the seam after
  ``Stack.state_set``;
* when a newer operation replaces a running one: the older traversals'
  rows, through :func:`operation_started`, called by the seam after
  ``Stack.converge_stack``;
* whatever escaped both (an engine killed mid-operation, a release of a
  hold left behind by a failed operation): :func:`purge_stale`, run now
  and then by every heat-engine (:func:`watch`, a bounded sweep) and by
  ``heat-breakpoint-manage purge`` next to ``heat-manage purge_deleted``.

A row is stale when its root stack is gone, soft-deleted, not
IN_PROGRESS, or running another traversal; a resource data row of ours
when its resource is gone (Heat deletes a replaced resource's row, and
SQLite keeps its data) or its root stack no longer runs. Only stale rows
are deleted, so engines racing here never remove what a running
operation needs.
"""

import threading
import time

from oslo_log import log as logging
import sqlalchemy as sa

from heat_breakpoint.db import resource_data
from heat_breakpoint.db import tables

LOG = logging.getLogger(__name__)

#: How many operations a sweep purges at most.
SWEEP_LIMIT = 1000
IN_PROGRESS = 'IN_PROGRESS'

_stack = sa.table('stack', sa.column('id'), sa.column('status'),
                  sa.column('current_traversal'), sa.column('deleted_at'))
_resource = sa.table('resource', sa.column('id'), sa.column('root_stack_id'))
_resource_data = sa.table('resource_data', sa.column('id'),
                          sa.column('key'), sa.column('value'),
                          sa.column('resource_id'))


def _delete_root(conn, root_id, keep_traversal=None) -> int:
    deleted = 0
    for table in tables.TABLES:
        where = table.c.root_stack_id == root_id
        if keep_traversal is not None:
            where = sa.and_(where, table.c.traversal != keep_traversal)
        deleted += conn.execute(table.delete().where(where)).rowcount
    return deleted


def _delete_released(conn, root_id, keep_traversal=None) -> int:
    """The notes left on the root stack's resources (not its holds)."""
    ids = sa.select(_resource.c.id).where(
        _resource.c.root_stack_id == root_id).scalar_subquery()
    where = sa.and_(_resource_data.c.key.in_(resource_data.NOTE_KEYS),
                    _resource_data.c.resource_id.in_(ids))
    if keep_traversal is not None:
        # Each note names the traversal it was written for.
        where = sa.and_(where, ~_resource_data.c.value.contains(
            keep_traversal, autoescape=True))
    return conn.execute(_resource_data.delete().where(where)).rowcount


def _delete_orphans(conn) -> int:
    """Our data rows whose resource row is gone.

    Heat deletes the rows of replaced resources when an operation ends;
    MySQL's foreign key takes their data along, SQLite (without foreign
    keys, as oslo.db opens it) keeps it: there it goes here.
    """
    if conn.dialect.name != 'sqlite':
        return 0
    gone = ~sa.exists().where(
        _resource.c.id == _resource_data.c.resource_id)
    return conn.execute(_resource_data.delete().where(
        _resource_data.c.key.in_(resource_data.DATA_KEYS), gone)).rowcount


def operation_ended(stack) -> None:
    """The root ``stack`` reached COMPLETE or FAILED: drop its rows."""
    if stack.owner_id or not stack.convergence or stack.id is None or \
            stack.status == IN_PROGRESS:
        return
    try:
        _purge_ended(stack.id)
    except Exception:
        # Never fail Heat's own state change; the sweep catches up.
        LOG.exception('Could not purge the breakpoint state of stack %s',
                      stack.id)


# Engines purge the rows of one stack at once (its operation's end, a
# newer operation's start, the sweep): on MySQL such deletes can deadlock,
# and the loser starts over, as the operation's own writes do.
@tables.retry_races
def _purge_ended(root_id) -> None:
    with tables.begin() as conn:
        _delete_root(conn, root_id)
        _delete_released(conn, root_id)
        _delete_orphans(conn)


@tables.retry_races
def _purge_replaced(root_id, traversal) -> None:
    with tables.begin() as conn:
        _delete_root(conn, root_id, keep_traversal=traversal)
        _delete_released(conn, root_id, keep_traversal=traversal)


def operation_started(stack) -> None:
    """The root ``stack`` runs a new traversal: drop the older ones' rows."""
    if stack.owner_id or not stack.convergence or stack.id is None or \
            not stack.current_traversal:
        return
    try:
        _purge_replaced(stack.id, stack.current_traversal)
    except Exception:
        LOG.exception('Could not purge the breakpoint state of stack %s',
                      stack.id)


def _stale_keys(conn, limit):
    keys = sa.union(*[sa.select(t.c.root_stack_id, t.c.traversal)
                      for t in tables.TABLES]).subquery('k')
    live = sa.select(_stack.c.id).where(
        _stack.c.id == keys.c.root_stack_id,
        _stack.c.deleted_at.is_(None),
        _stack.c.status == IN_PROGRESS,
        _stack.c.current_traversal == keys.c.traversal)
    query = sa.select(keys.c.root_stack_id, keys.c.traversal).where(
        ~live.exists()).limit(limit)
    return [tuple(row) for row in conn.execute(query)]


def _stale_released(conn, limit):
    """Our data rows of resources gone, or of root stacks not running.

    Notes of any kind; a hold only when its resource is gone (a hold of a
    stack that stopped is ended by its next check, or seen by the user).
    """
    query = sa.select(_resource_data.c.id).select_from(
        _resource_data.outerjoin(
            _resource, _resource.c.id == _resource_data.c.resource_id
        ).outerjoin(_stack, _stack.c.id == _resource.c.root_stack_id)
    ).where(_resource_data.c.key.in_(resource_data.DATA_KEYS), sa.or_(
        _resource.c.id.is_(None),
        sa.and_(_resource_data.c.key.in_(resource_data.NOTE_KEYS), sa.or_(
            _stack.c.id.is_(None), _stack.c.status != IN_PROGRESS,
            _stack.c.deleted_at.isnot(None))))).limit(limit)
    return [row[0] for row in conn.execute(query)]


def _data_name(key: str) -> str:
    return 'resource_data.' + key


@tables.retry_races
def purge_stale(engine, limit=SWEEP_LIMIT) -> dict:
    """Delete up to ``limit`` stale operations' rows and data rows.

    Returns how many rows went, per table and resource data key.
    """
    counts = {t.name: 0 for t in tables.TABLES}
    counts.update((_data_name(key), 0) for key in resource_data.DATA_KEYS)
    with tables.begin(engine) as conn:
        for root_id, traversal in _stale_keys(conn, limit):
            for table in tables.TABLES:
                counts[table.name] += conn.execute(table.delete().where(
                    table.c.root_stack_id == root_id,
                    table.c.traversal == traversal)).rowcount
        ids = _stale_released(conn, limit)
        if ids:
            for key, found in conn.execute(
                    sa.select(_resource_data.c.key, sa.func.count())
                    .where(_resource_data.c.id.in_(ids))
                    .group_by(_resource_data.c.key)):
                counts[_data_name(key)] = found
            conn.execute(_resource_data.delete().where(
                _resource_data.c.id.in_(ids)))
    return counts


def count_rows(engine) -> dict:
    """How many rows of ours there are, per table and data key."""
    with engine.connect() as conn:
        counts = {t.name: conn.execute(
            sa.select(sa.func.count()).select_from(t)).scalar()
            for t in tables.TABLES}
        counts.update((_data_name(key), 0) for key in resource_data.DATA_KEYS)
        for key, found in conn.execute(
                sa.select(_resource_data.c.key, sa.func.count())
                .where(_resource_data.c.key.in_(resource_data.DATA_KEYS))
                .group_by(_resource_data.c.key)):
            counts[_data_name(key)] = found
    return counts


def watch(interval=None) -> None:
    """In a heat-engine, sweep stale rows every ``interval`` seconds.

    By default ``[breakpoint] purge_interval``.
    """
    if interval is None:
        from oslo_config import cfg
        interval = cfg.CONF.breakpoint.purge_interval
    threading.Thread(target=_sweep_forever, args=(interval,),
                     name='breakpoint-purge', daemon=True).start()


def _sweep_forever(interval) -> None:
    while True:
        time.sleep(interval)
        try:
            counts = purge_stale(tables.engine())
            if any(counts.values()):
                LOG.info('Purged stale breakpoint state: %s', counts)
        except Exception:
            LOG.exception('Could not purge stale breakpoint state')
