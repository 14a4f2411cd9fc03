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
"""What a stack's breakpoints are doing now, from a few database queries.

Serves ``GET /v1/{project}/stacks/{stack}[/{id}]/breakpoints`` (routed by
the API filter, see :mod:`heat_breakpoint.api.filter`, to the engine RPC
method ``breakpoint_list`` the seam adds): the breakpoints armed in the
stack's environment and the resources held now, at any nesting depth.
Without it a client must list every resource of the tree; here the held
ones are found by their hold records (and, for stock Heat hooks, by Heat's
hook flags) among the data rows of the resources sharing the stack's root,
so the cost hardly grows with the number of resources and not at all with
the number of events.
"""

import collections
import json

from oslo_config import cfg
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from heat.common import exception
from heat.db import api as db_api
from heat.db import models
from heat.objects import stack as stack_objects

from heat_breakpoint.db import operation_state
from heat_breakpoint.db import resource_data
from heat_breakpoint.db import tables
from heat_breakpoint.engine.check import decision
from heat_breakpoint.engine.check import facts
from heat_breakpoint.engine.check import hold_records
from heat_breakpoint.engine.commands import commands
from heat_breakpoint.engine import rpc_policy
from heat_breakpoint.engine.view import progress as progress_view
from heat_breakpoint.model import breakpoints
from heat_breakpoint.model import operation_state as model_state
from heat_breakpoint.model import registry

ARMED = 'armed'
HELD = 'held'
DISARMED = 'disarmed'
DONE = 'done'
WAITING = 'waiting'
# Who holds a resource: the plugin (a breakpoint) or Heat's own hook code.
PLUGIN_FORM = 'plugin'
HOOK_FORM = 'hook'
# Where a row comes from besides the decision's rules: a stock hook.
HOOK_SOURCE = 'hook'

_HOOK_ACTIONS = {hook: action
                 for action, hook in hold_records.PRE_HOOKS.items()}
_DATA_KEYS = (resource_data.HOLD_KEY,) + tuple(_HOOK_ACTIONS)
_IN_PROGRESS = 'IN_PROGRESS'
_STACK_COLUMNS = ('id', 'name', 'owner_id', 'parent_resource_name',
                  'current_traversal', 'action', 'status', 'created_at',
                  'updated_at')
_WILDCARDS = '*?['


def find_stack(service, cnxt, stack_identity=None, stack_name=None):
    """The stack's DB object (its template loaded with it), as Heat finds it.

    By identity (name and id) through Heat's own check, or by name or id
    alone as Heat's stack lookup does; the caller's project must own it
    (or be admin).
    """
    if stack_identity is not None:
        return service._get_stack(cnxt, stack_identity)
    found = None
    if uuidutils.is_uuid_like(stack_name):
        found = stack_objects.Stack.get_by_id(cnxt, stack_name)
    if found is None:
        found = stack_objects.Stack.get_by_name(cnxt, stack_name)
    if found is None:
        raise exception.EntityNotFound(entity='Stack', name=stack_name)
    if not cnxt.is_admin and cnxt.project_id not in (
            found.tenant, found.stack_user_project_id):
        raise exception.InvalidTenant(target=found.tenant,
                                      actual=cnxt.project_id)
    return found


def breakpoint_list(service, cnxt, stack_identity=None, stack_name=None,
                    nested_depth=None, resource=None,
                    progress=False) -> dict:
    """The stack and its breakpoints, as the API returns them.

    ``nested_depth``: how deep below the stack held resources are looked
    for (None: all the way down). ``resource``: a resource path below the
    stack to describe in full (``show``), under the key ``resource``.
    ``progress``: with the operation's progress too
    (:mod:`heat_breakpoint.engine.view.progress`).

    Rows: the held resources, then the rules of the running operation
    (:func:`decision.rules`, the engine's own), each with its ``state``
    (armed, disarmed, done) and ``source`` (environment, set, step,
    run-to, or hook for a stock hook set by hand).
    """
    rpc_policy.check_list(cnxt)  # before anything of the stack is read
    db_stack = find_stack(service, cnxt, stack_identity, stack_name)
    if nested_depth is not None and nested_depth < 0:
        raise exception.Invalid(reason='nested_depth must be 0 or more')
    stacks = _StackRows()
    stacks.add(db_stack)
    tables.engine()  # our tables there, before a connection is open
    with db_api.get_engine().connect() as conn:
        root_id = stacks.root_id(conn, db_stack.id)
        root = stacks.get(conn, root_id)
        rows = _held(conn, root, db_stack, stacks, nested_depth)
        state = _state(root, conn)
        remaining = _timeout_remaining(db_stack, state)
        env = db_stack.raw_template.environment or {}
        found = decision.rules(registry.from_environment(env), state) \
            if db_stack.id == root_id else decision.rules(
                registry.from_environment(env), model_state.State())
        rows += _rule_rows(conn, found, rows, root, stacks, db_stack)
        rows += _hook_rows(conn, env, found, rows, root, stacks, db_stack)
    for row in rows:
        row['timeout_remaining'] = remaining
    result = {'stack': {'id': db_stack.id, 'stack_name': db_stack.name,
                        'stack_status': '%s_%s' % (db_stack.action,
                                                   db_stack.status)},
              'breakpoints': rows}
    result.update(progress_view.asked(progress, db_stack, root_id, rows,
                                      nested_depth, remaining))
    if resource is not None:
        from heat_breakpoint.engine.view import describe
        result['resource'] = describe.resource(
            cnxt, db_stack, resource, found, rows, root, remaining)
    return result


def _state(root, conn) -> model_state.State:
    """What was said in the running operation; nothing once it ended."""
    if root['status'] != _IN_PROGRESS:
        return model_state.State()
    return operation_state.read((root['id'], root['current_traversal']),
                                conn)


def _rule_row(rule, state, ident) -> dict:
    bp = rule.breakpoint
    return {
        'resource': bp.name, 'state': state, 'source': rule.source,
        'why': rule.why, 'when': bp.when,
        'action': ','.join(action.upper() for action in bp.actions),
        'held_since': '', 'timeout_remaining': '', 'hook': None,
        'form': None, 'breakpoint': bp.name, 'stack': ident,
        'resource_name': bp.pattern}


def _holding(held_rows) -> set:
    """(resource, kind of hold) of the held rows: the rules that hold.

    A resource held before its action (a step's hold, say) keeps the row
    of a rule that would hold it on failure or after it.
    """
    return {(row['resource'], row.get('when') or breakpoints.BEFORE)
            for row in held_rows}


def _rule_rows(conn, found, held_rows, root, stacks, db_stack) -> list:
    holding = _holding(held_rows)
    shown_keys = {rule.breakpoint.key for rule in found
                  if rule.source == decision.ENVIRONMENT}
    ident = _ident(db_stack.name, db_stack.id)
    exact = [rule.name for rule in found
             if not any(c in rule.name for c in _WILDCARDS)]
    done, begun = _done(conn, root, stacks, exact) if root['status'] == \
        _IN_PROGRESS else (set(), set())
    rows = []
    for rule in found:
        if (rule.name, rule.breakpoint.when) in holding:
            continue
        if (rule.exact and not rule.armed and
                rule.source == decision.ENVIRONMENT and
                rule.breakpoint.key in shown_keys):
            continue  # a clear of a breakpoint the environment names
        state = ARMED if rule.armed else DISARMED
        why = rule.why
        if state == ARMED and root['status'] == _IN_PROGRESS and \
                not decision.may_act_in(root['action'], rule.breakpoint):
            # No action of it is run in this operation (a create-only
            # breakpoint in a delete): it cannot hold here.
            state, why = DISARMED, 'not in a %s' % root['action'].lower()
        before = rule.breakpoint.when in commands.BEFORE_WHENS
        if rule.name in done or (before and rule.name in begun):
            # Done is what the resource is, whatever disarmed the rule;
            # before an action that began (a failure held, retried) a
            # breakpoint no longer holds.
            state = DONE
        row = _rule_row(rule, state, ident)
        row['why'] = why
        if rule.source != decision.ENVIRONMENT and \
                root['status'] == _IN_PROGRESS:
            # Said during the operation: it applies to its action.
            row['action'] = root['action']
        if rule.first_only:
            row['why'] = 'the first resources of %s' % breakpoints.SEPARATOR \
                .join(rule.breakpoint.path)
        rows.append(row)
    return rows


def _hook_rows(conn, env, found, held_rows, root, stacks,
               db_stack) -> list:
    """Pre-* hooks set by hand: stock Heat holds there, whatever is said.

    Done once their resource is past them: begun or done in the running
    operation, as a breakpoint before it; and a pre-create hook once its
    resource was created (stock Heat holds before a create only in the
    create of the resource's stack).
    """
    marked = {rule.name for rule in found
              if rule.source == decision.ENVIRONMENT}
    holding = _holding(held_rows)
    ident = _ident(db_stack.name, db_stack.id)
    hooks = [bp for bp in registry.armed(env)
             if bp.name not in marked and (bp.name, bp.when) not in holding]
    found_rows = _resource_rows(conn, root, stacks, [
        bp.name for bp in hooks
        if not any(c in bp.name for c in _WILDCARDS)], db_stack.id)
    started = commands.root_started_row(root)
    rows = []
    for bp in hooks:
        state = ARMED
        row = found_rows.get(bp.name)
        if row is not None and _hook_passed(bp, row, root, started):
            state = DONE
        rows.append(_rule_row(decision.Rule(bp, HOOK_SOURCE), state, ident))
    return rows


def _hook_passed(bp, row, root, started) -> bool:
    if root['status'] == _IN_PROGRESS and \
            root['action'].lower() in bp.actions:
        state_of = (root['action'], row.action, row.status,
                    row.updated_at or row.created_at, started)
        if decision.is_done(*state_of) or decision.has_begun(
                *state_of, reason=row.status_reason):
            return True
    return (tuple(bp.actions) == ('create',) and row.action != 'INIT' and
            (row.action, row.status) != ('CREATE', _IN_PROGRESS))


def _resource_rows(conn, root, stacks, paths, top_id=None) -> dict:
    """``{path: row}`` of the tree's resources at these paths.

    Paths from the stack ``top_id`` down (the root's by default).
    """
    if not paths:
        return {}
    resource = models.Resource.__table__
    names = {path.split(breakpoints.SEPARATOR)[-1] for path in paths}
    found = conn.execute(
        sa.select(resource.c.name, resource.c.stack_id, resource.c.action,
                  resource.c.status, resource.c.updated_at,
                  resource.c.created_at, resource.c.status_reason)
        .where(resource.c.root_stack_id == root['id'],
               resource.c.name.in_(sorted(names)))).all()
    wanted = set(paths)
    rows = {}
    for row in found:
        path = stacks.path_below(conn, top_id or root['id'], row.stack_id,
                                 row.name)
        name = breakpoints.SEPARATOR.join(path) if path else None
        if name in wanted:
            rows[name] = row
    return rows


def _done(conn, root, stacks, paths) -> tuple:
    """Which of these resource paths are done in the running operation.

    And which began their action in it (done, failed or running).
    """
    started = commands.root_started_row(root)
    done, begun = set(), set()
    for name, row in _resource_rows(conn, root, stacks, paths).items():
        state_of = (root['action'], row.action, row.status,
                    row.updated_at or row.created_at, started)
        if decision.is_done(*state_of):
            done.add(name)
        if decision.has_begun(*state_of, reason=row.status_reason):
            begun.add(name)
    return done, begun


def _ident(name, stack_id) -> str:
    return '%s/%s' % (name, stack_id)


class _StackRows:
    """Stacks of the tree by id, read once each (parents of held ones)."""

    def __init__(self):
        self._rows = {}

    def add(self, row) -> None:
        self._rows[row.id] = {column: getattr(row, column)
                              for column in _STACK_COLUMNS}

    def get(self, conn, stack_id):
        if stack_id not in self._rows:
            stack = models.Stack.__table__
            found = conn.execute(
                sa.select(*(stack.c[column] for column in _STACK_COLUMNS))
                .where(stack.c.id == stack_id)).first()
            self._rows[stack_id] = found._asdict() if found else None
        return self._rows[stack_id]

    def root_id(self, conn, stack_id) -> str:
        row = self.get(conn, stack_id)
        while row is not None and row['owner_id']:
            stack_id = row['owner_id']
            row = self.get(conn, stack_id)
        return stack_id

    def path_below(self, conn, top_id, stack_id, name):
        """``name``'s path from the stack ``top_id`` down, or None."""
        path = [name]
        row = self.get(conn, stack_id)
        while row is not None and row['id'] != top_id:
            path.append(row['parent_resource_name'] or '')
            row = self.get(conn, row['owner_id']) if row['owner_id'] \
                else None
        if row is None:
            return None
        return tuple(reversed(path))


def _held(conn, root, db_stack, stacks, nested_depth) -> list:
    by_resource = {}
    for row in _held_data(conn, root['id']):
        by_resource.setdefault(row.id, []).append(row)
    rows = []
    for entries in by_resource.values():
        row = _held_row(conn, root, db_stack, stacks, entries)
        if row is None:
            continue
        depth = len(row.pop('path')) - 1
        if nested_depth is None or depth <= nested_depth:
            rows.append(row)
    # by path, a group's members in their order: grp/2 before grp/10
    return sorted(rows, key=lambda row: breakpoints.natural_key(
        row['resource']))


def _held_data(conn, root_id) -> list:
    """The hold records and hook flags of the tree, with their resources.

    Two queries, the few data rows first: Heat's SQLite schema has no
    index on ``resource_data.resource_id``, and SQLite joins the tree's
    resources (found by their root index) to a scan of that table for
    each, 35 ms at 1,000 resources; this way it scans the table once.
    """
    resource = models.Resource.__table__
    data = models.ResourceData.__table__
    tree = sa.select(resource.c.id).where(
        resource.c.root_stack_id == root_id).scalar_subquery()
    entries = conn.execute(
        sa.select(data.c.resource_id, data.c.key, data.c.value,
                  data.c.created_at, data.c.updated_at)
        .where(data.c.key.in_(_DATA_KEYS), data.c.resource_id.in_(tree))
    ).all()
    if not entries:
        return []
    owners = {row.id: row for row in conn.execute(
        sa.select(resource.c.id, resource.c.name, resource.c.stack_id)
        .where(resource.c.id.in_(sorted({e.resource_id
                                         for e in entries}))))}
    found = []
    for entry in sorted(entries, key=lambda e: e.resource_id):
        owner = owners.get(entry.resource_id)
        if owner is not None:  # deleted between the two queries
            found.append(_HeldData(owner.id, owner.name, owner.stack_id,
                                   *entry[1:]))
    return found


_HeldData = collections.namedtuple(
    '_HeldData', 'id name stack_id key value created_at updated_at')


def _held_row(conn, root, db_stack, stacks, entries):
    first = entries[0]
    owner = stacks.get(conn, first.stack_id)
    if owner is None:
        return None
    path = stacks.path_below(conn, db_stack.id, first.stack_id, first.name)
    if path is None:
        return None
    values = {entry.key: entry for entry in entries}
    record = _record(values.get(resource_data.HOLD_KEY))
    extra = {}
    if record is not None:
        traversal = record.get('traversal')
        if traversal is not None and traversal != owner['current_traversal']:
            return None  # left by an operation a newer one replaced
        if record.get('root_traversal', root['current_traversal']) != \
                root['current_traversal']:
            return None  # a nested stack the newer operation not reached
        if traversal is None and owner['status'] != _IN_PROGRESS:
            return None
        action, hook = record['action'], record['hook']
        name, form = record['breakpoint'], PLUGIN_FORM
        since = hold_records.since_text(record.get('since'))
        extra = {'source': record.get('source', decision.ENVIRONMENT),
                 'actions': ','.join(record.get('actions') or [action]),
                 'when': record.get('when', breakpoints.BEFORE),
                 'why': record.get('error', '')}
    else:
        # A stock hook: Heat flags it in the resource's data while it waits.
        flags = [entry for key, entry in values.items()
                 if key in _HOOK_ACTIONS and entry.value == 'True']
        if not flags or owner['status'] != _IN_PROGRESS:
            return None
        flag = flags[0]
        hook = flag.key
        action = _HOOK_ACTIONS[hook]
        if action != owner['action']:
            return None
        name, form = breakpoints.SEPARATOR.join(path), HOOK_FORM
        since = hold_records.since_text(flag.updated_at or flag.created_at)
        extra = {'source': HOOK_SOURCE, 'actions': action,
                 'when': breakpoints.BEFORE}
    row = {'resource': breakpoints.SEPARATOR.join(path), 'path': path,
           'state': HELD, 'action': action, 'held_since': since,
           'timeout_remaining': '', 'hook': hook, 'form': form,
           'breakpoint': name, 'stack': _ident(owner['name'], owner['id']),
           'resource_name': first.name, 'why': ''}
    row.update(extra)
    return row


def _record(entry):
    if entry is None:
        return None
    try:
        record = json.loads(entry.value)
    except (TypeError, ValueError):
        return None
    return record if isinstance(record, dict) and 'hook' in record else None


def _timeout_remaining(db_stack, state) -> str:
    """Time left before Heat times the operation out, ``H:MM:SS``.

    As Heat counts it: from the operation's start, the stack's timeout or
    ``stack_action_timeout``, less time held at breakpoints unless held
    time counts (``[breakpoint] pause_counts_against_timeout``).
    """
    if db_stack.status != _IN_PROGRESS:
        return ''
    limit = (db_stack.timeout * 60 if db_stack.timeout
             else cfg.CONF.stack_action_timeout)
    started = db_stack.updated_at or db_stack.created_at
    elapsed = (timeutils.utcnow() - started).total_seconds()
    if (facts.enabled() and db_stack.convergence and
            not cfg.CONF.breakpoint.pause_counts_against_timeout):
        elapsed -= state.paused(timeutils.utcnow)
    seconds = max(0, int(limit - elapsed))
    return '%d:%02d:%02d' % (seconds // 3600, seconds // 60 % 60,
                             seconds % 60)
