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
"""How far the running operation got: counts by state and latest events.

``openstack stack breakpoint watch`` refreshes this every few seconds, so
it must not grow with the stack's history nor, in Python, with its
resources: three small queries on rows sharing the stack's root (the
tree's stacks; its resources counted by the database, a row per stack
and combination of what decides a state; the operation's latest few
events with ``LIMIT``), never a scan of every event as ``openstack stack
hook poll`` does, and nothing at all unless the breakpoints view is
asked for it (``?progress=1``). A stack's graph is read and parsed once
per traversal (a fourth query, for the stacks not seen yet), then kept
in memory (:class:`_WalkedCache`).

What is counted is what the current traversal walks: a convergence
stack stores its traversal's graph (``current_deps``), whose update nodes
are the resources this operation creates or updates (for a delete, its
cleanup nodes are the resources it deletes). Rows the graph does not
name (a replaced resource's old row, a resource the new template drops,
a stack an update replaced) are not counted. A stack without a graph
(the legacy engine) counts its resources of the current template.
"""

import collections
import datetime
import threading

import sqlalchemy as sa

from heat.common import timeutils as heat_timeutils
from heat.db import api as db_api
from heat.db import models

from heat_breakpoint.model import breakpoints

#: A resource's state in the view, in the order of its life.
STATES = WAITING, IN_PROGRESS, HELD, COMPLETE, FAILED = (
    'waiting', 'in_progress', 'held', 'complete', 'failed')
# How many of the operation's latest events the view returns.
EVENTS = 8

# Stacks whose traversal's walked resources are kept in memory (LRU).
WALKED_CACHE_SIZE = 256

_STACK_COLUMNS = ('id', 'name', 'owner_id', 'parent_resource_name',
                  'raw_template_id', 'current_traversal', 'action',
                  'status')


def asked(wanted, db_stack, root_id, rows, nested_depth=None,
          timeout_remaining='') -> dict:
    """``{'progress': ...}`` for the view when ``wanted``, else ``{}``."""
    if not wanted:
        return {}
    with db_api.get_engine().connect() as conn:
        found = progress(conn, db_stack, root_id, rows, nested_depth)
    found['timeout_remaining'] = timeout_remaining
    return {'progress': found}


def progress(conn, db_stack, root_id, held_rows, nested_depth=None,
             events=EVENTS) -> dict:
    """The ``progress`` part of the breakpoints view of ``db_stack``.

    ``held_rows``: the view's rows; the held ones are in progress for
    Heat, held for the user. ``nested_depth`` limits the stacks counted
    as it limits the held rows.
    """
    stacks = _tree(conn, root_id, db_stack.id, nested_depth)
    started = db_stack.updated_at or db_stack.created_at
    counts = dict.fromkeys(STATES, 0)
    held = {(_stack_id(row['stack']), row['resource_name'])
            for row in held_rows if row.get('state') == HELD}
    for group in _groups(conn, root_id, stacks, held, started):
        state = HELD if group.held else _state(group, stacks[group.stack_id])
        counts[state] += group.rows
    total = sum(counts.values())
    return {
        'counts': counts, 'total': total, 'done': counts[COMPLETE],
        'started': heat_timeutils.isotime(started) if started else '',
        'elapsed': _elapsed(db_stack, started),
        'events': _events(conn, stacks, db_stack.id, started, events),
    }


def _stack_id(ident) -> str:
    return (ident or '').rsplit('/', 1)[-1]


def _tree(conn, root_id, top_id, nested_depth) -> dict:
    """The live stacks at or below ``top_id``, each with what it walks."""
    stack = models.Stack.__table__
    resource = models.Resource.__table__
    below = sa.select(resource.c.stack_id).where(
        resource.c.root_stack_id == root_id).distinct()
    found = conn.execute(
        sa.select(*(stack.c[column] for column in _STACK_COLUMNS))
        .where(sa.or_(stack.c.id == root_id, stack.c.id.in_(below)),
               stack.c.deleted_at.is_(None))).all()
    rows = {row.id: row._asdict() for row in found}
    tree = {}
    for stack_id, row in rows.items():
        path = _path(rows, top_id, stack_id)
        if path is None:
            continue
        if nested_depth is not None and len(path) > nested_depth:
            continue
        row['path'] = path
        tree[stack_id] = row
    _add_walked(conn, tree)
    return tree


def _path(rows, top_id, stack_id):
    """Names of the nested-stack resources from ``top_id`` down, or None."""
    path = []
    seen = set()
    while stack_id != top_id:
        row = rows.get(stack_id)
        if row is None or stack_id in seen or not row['owner_id']:
            return None
        seen.add(stack_id)
        path.append(row['parent_resource_name'] or '')
        stack_id = row['owner_id']
    return tuple(reversed(path))


class _WalkedCache:
    """What each stack's traversal walks, by (stack id, traversal).

    A traversal's graph never changes once stored, and a new operation
    is a new traversal id, so an entry never goes stale; but Heat stores
    the traversal id (with IN_PROGRESS) before the graph, so an entry is
    only made once the graph is known to be the traversal's: its sync
    points exist (written after the graph), or the stack is no longer in
    progress (nothing writes the graph again before a new traversal).
    """

    def __init__(self, size):
        self._size = size
        self._entries = collections.OrderedDict()
        self._lock = threading.Lock()

    def get(self, key):
        with self._lock:
            if key not in self._entries:
                return _MISSING
            self._entries.move_to_end(key)
            return self._entries[key]

    def put(self, key, walked) -> None:
        with self._lock:
            self._entries[key] = walked
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


_MISSING = object()
_walked_cache = _WalkedCache(WALKED_CACHE_SIZE)


def _add_walked(conn, tree) -> None:
    """Set each stack's ``walked``: from the cache, else from its graph."""
    missing = []
    for stack_id, row in tree.items():
        row['walked'] = _walked_cache.get(_traversal_key(row))
        if row['walked'] is _MISSING:
            missing.append(stack_id)
    if not missing:
        return
    for found in _graphs(conn, missing):
        row = tree[found.id]
        row['walked'] = _walked(found._asdict())
        if _graph_is_final(row, found.graph_stored):
            _walked_cache.put(_traversal_key(row), row['walked'])


def _traversal_key(row):
    return row['id'], row['current_traversal']


def _graph_is_final(row, graph_stored) -> bool:
    """Whether the graph read is the traversal's, for good."""
    if not row['current_traversal']:
        return False
    return bool(graph_stored) or row['status'] != 'IN_PROGRESS'


def _graphs(conn, stack_ids) -> list:
    """The stacks' graphs, each read with whether it is the traversal's.

    One statement: the sync points it sees were written after the graph
    it reads, so a graph read with them is the current traversal's.
    """
    stack = models.Stack.__table__
    sync_point = models.SyncPoint.__table__
    graph_stored = sa.exists().where(
        sync_point.c.stack_id == stack.c.id,
        sync_point.c.traversal_id == stack.c.current_traversal)
    return conn.execute(
        sa.select(stack.c.id, stack.c.current_deps, stack.c.action,
                  graph_stored.label('graph_stored'))
        .where(stack.c.id.in_(sorted(stack_ids)))).all()


def _walked(row):
    """Ids of the resources the stack's traversal acts on, or None."""
    deps = row['current_deps']
    if not isinstance(deps, dict) or not deps.get('edges'):
        return None
    nodes = {True: set(), False: set()}
    for edge in deps['edges']:
        for node in edge:
            # [resource id, is_update] (and a node type for snapshots)
            if isinstance(node, (list, tuple)) and len(node) == 2:
                nodes[bool(node[1])].add(node[0])
    update = row['action'] != 'DELETE'
    if row['action'] == 'ROLLBACK' and not nodes[True]:
        # The rollback of a create deletes what it made: cleanup nodes.
        update = False
    return frozenset(nodes[update])


def _groups(conn, root_id, stacks, held, started) -> list:
    """The counted resources of the tree, counted by what decides state.

    Counted in the database: a row per stack and combination of status,
    action, template, whether changed in this operation and whether held
    (a few per stack, whatever the number of resources), of the rows the
    stack's traversal walks (those of its current template when it has
    no graph).
    """
    if not stacks:
        return []
    resource = models.Resource.__table__
    columns = (resource.c.stack_id, resource.c.status, resource.c.action,
               resource.c.current_template_id)
    return conn.execute(
        sa.select(*columns,
                  _changed_since(resource, started).label('this_operation'),
                  _among_held(resource, held).label('held'),
                  sa.func.count().label('rows'))
        .where(resource.c.root_stack_id == root_id,
               sa.or_(*(_counted(resource, stack)
                        for stack in stacks.values())))
        .group_by(*columns, 'this_operation', 'held')).all()


def _changed_since(resource, started):
    """Whether a row changed in this operation (no time: it did)."""
    if started is None:
        return sa.true()
    changed = sa.func.coalesce(resource.c.updated_at, resource.c.created_at)
    return sa.or_(changed.is_(None), changed >= started)


def _among_held(resource, held):
    if not held:
        return sa.false()
    return sa.or_(*(
        sa.and_(resource.c.stack_id == stack_id, resource.c.name == name)
        for stack_id, name in sorted(held)))


def _counted(resource, stack):
    """The stack's rows that are counted: walked, or of its template."""
    walked = stack['walked']
    if walked is None:
        kept = resource.c.current_template_id == stack['raw_template_id']
    else:
        kept = _among_ids(resource.c.id, walked)
    return sa.and_(resource.c.stack_id == stack['id'], kept)


def _among_ids(column, ids):
    """``column IN (ids)``, the integer ids written in the statement.

    As literals, not one bound parameter each: a graph names every
    resource of its stack, and literals cost the database a parse, where
    parameters cost Python a compile of the statement on every call.
    """
    numbers = sorted(value for value in ids
                     if isinstance(value, int) and not isinstance(value, bool))
    if not numbers:
        return sa.false()
    listed = sa.literal_column('(%s)' % ','.join(map(str, numbers)))
    return column.op('IN', is_comparison=True)(listed)


def _state(group, stack) -> str:
    """The state of the rows of ``group`` (a row of :func:`_groups`)."""
    if group.status == 'IN_PROGRESS':
        return IN_PROGRESS
    if group.status == 'FAILED':
        return FAILED if group.this_operation else WAITING
    if group.status != 'COMPLETE' or group.action == 'INIT':
        return WAITING
    if stack['action'] == 'DELETE' or (
            stack['action'] == 'ROLLBACK' and group.action == 'DELETE'):
        return COMPLETE if group.action == 'DELETE' else WAITING
    # An update stamps each resource it has visited (changed or not) with
    # the new template; rows still on the old one are not reached yet.
    if group.current_template_id == stack['raw_template_id']:
        return COMPLETE
    return WAITING


def _elapsed(db_stack, started) -> int:
    if started is None:
        return 0
    end = datetime.datetime.utcnow()
    if db_stack.status != 'IN_PROGRESS' and db_stack.updated_at:
        end = max(db_stack.updated_at, started)
    return max(0, int((end - started).total_seconds()))


def _events(conn, stacks, top_id, started, limit) -> list:
    if not stacks or not limit:
        return []
    event = models.Event.__table__
    query = (sa.select(event.c.id, event.c.stack_id, event.c.created_at,
                       event.c.resource_name, event.c.resource_action,
                       event.c.resource_status,
                       event.c.resource_status_reason)
             .where(event.c.stack_id.in_(list(stacks)))
             .order_by(event.c.id.desc()).limit(limit))
    if started is not None:
        query = query.where(event.c.created_at >= started)
    found = conn.execute(query).all()
    result = []
    for row in reversed(found):
        path = stacks[row.stack_id]['path']
        name = row.resource_name or ''
        # A stack's own event names the stack: show it by its path.
        if row.stack_id != top_id and name == stacks[row.stack_id]['name']:
            name = ''
        result.append({
            'time': heat_timeutils.isotime(row.created_at),
            'resource': breakpoints.SEPARATOR.join(
                [part for part in path + (name,) if part]),
            'action': row.resource_action or '',
            'status': row.resource_status or '',
            'reason': row.resource_status_reason or ''})
    return result
