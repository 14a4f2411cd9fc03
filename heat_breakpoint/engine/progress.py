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
it must not grow with the stack's history: three small queries on rows
sharing the stack's root (the tree's stacks, its resources' states, the
operation's latest few events with ``LIMIT``), never a scan of every
event as ``openstack stack hook poll`` does, and nothing at all unless
the breakpoints view is asked for it (``?progress=1``).

What is counted is what the current traversal walks: a convergence
stack stores its traversal's graph (``current_deps``), whose update nodes
are the resources this operation creates or updates (for a delete, its
cleanup nodes are the resources it deletes). Rows the graph does not
name (a replaced resource's old row, a resource the new template drops,
a stack an update replaced) are not counted. A stack without a graph
(the legacy engine) counts its resources of the current template.
"""

import datetime

import sqlalchemy as sa

from heat.common import timeutils as heat_timeutils
from heat.db import api as db_api
from heat.db import models

from heat_breakpoint import breakpoints

WAITING = 'waiting'
IN_PROGRESS = 'in_progress'
HELD = 'held'
COMPLETE = 'complete'
FAILED = 'failed'
STATES = (WAITING, IN_PROGRESS, HELD, COMPLETE, FAILED)
# How many of the operation's latest events the view returns.
EVENTS = 8

_STACK_COLUMNS = ('id', 'name', 'owner_id', 'parent_resource_name',
                  'raw_template_id', 'current_deps', 'action', 'status')


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
    for row in _resources(conn, root_id, stacks):
        stack = stacks.get(row.stack_id)
        if stack is None:  # above the stack watched, or too deep
            continue
        walked = stack['walked']
        if walked is not None and row.id not in walked:
            continue
        if walked is None and row.current_template_id != \
                stack['raw_template_id']:
            continue
        if (row.stack_id, row.name) in held:
            state = HELD
        else:
            state = _state(row, stack, started)
        counts[state] += 1
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
        row['walked'] = _walked(row)
        tree[stack_id] = row
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


def _walked(row):
    """Ids of the resources the stack's traversal acts on, or None."""
    deps = row['current_deps']
    if not isinstance(deps, dict) or not deps.get('edges'):
        return None
    update = row['action'] != 'DELETE'
    walked = set()
    for edge in deps['edges']:
        for node in edge:
            # [resource id, is_update] (and a node type for snapshots)
            if isinstance(node, (list, tuple)) and len(node) == 2 and \
                    bool(node[1]) == update:
                walked.add(node[0])
    return walked


def _resources(conn, root_id, stacks):
    resource = models.Resource.__table__
    return conn.execute(
        sa.select(resource.c.id, resource.c.stack_id, resource.c.name,
                  resource.c.action, resource.c.status,
                  resource.c.current_template_id, resource.c.updated_at,
                  resource.c.created_at)
        .where(resource.c.root_stack_id == root_id)).all() if stacks \
        else []


def _state(row, stack, started) -> str:
    if row.status == 'IN_PROGRESS':
        return IN_PROGRESS
    changed = row.updated_at or row.created_at
    this_operation = started is None or changed is None or \
        changed >= started
    if row.status == 'FAILED':
        return FAILED if this_operation else WAITING
    if row.status != 'COMPLETE' or row.action == 'INIT':
        return WAITING
    if stack['action'] == 'DELETE':
        return COMPLETE if row.action == 'DELETE' else WAITING
    # An update stamps each resource it has visited (changed or not) with
    # the new template; rows still on the old one are not reached yet.
    if row.current_template_id == stack['raw_template_id']:
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
