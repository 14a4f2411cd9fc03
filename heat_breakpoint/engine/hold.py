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
"""Where the engine decides to hold a resource, parks it, and lets it go.

A hold is a row of state in Heat's database, never a waiting thread:

* the convergence check that reaches a breakpoint shows the resource
  ``<ACTION>_IN_PROGRESS`` with a reason naming the breakpoint, records
  the hold in the resource's data, sets Heat's own hook flag (so stock
  ``openstack stack hook clear`` accepts it) and ends by raising
  :class:`Parked`, which Heat's check treats as a cancelled operation:
  nothing fails, nothing propagates, the RPC thread goes back to the pool;
* the release (a resource signal ``{"unset_hook": ...}`` served by any
  engine) restores the resource's state, notes that this traversal is
  released and re-dispatches the parked check through Heat's worker RPC.

The legacy engine runs a whole stack in one cooperative task, so there
the hold waits in that task, as Heat's own hooks do.
"""

import contextvars
import functools
import json
import threading
import time

from oslo_config import cfg
from oslo_context import context as oslo_context
from oslo_log import log as logging
from oslo_utils import timeutils
import sqlalchemy as sa

from heat.common import exception
from heat.engine import check_resource
from heat.engine import event as heat_event
from heat.engine import stack as parser
from heat.objects import resource as resource_objects
from heat.objects import resource_properties_data as rpd_objects
from heat.objects import stack as stack_objects
from heat.rpc import worker_client

from heat_breakpoint import breakpoints
from heat_breakpoint.engine import ancestry
from heat_breakpoint.engine import inputs
from heat_breakpoint.engine import operations
from heat_breakpoint import notify
from heat_breakpoint import reasons

LOG = logging.getLogger(__name__)

# Resource data keys. HOLD_KEY holds the JSON record of a hold in place;
# RELEASED_KEY the traversal whose hold was released, so the re-dispatched
# check of that traversal goes through.
HOLD_KEY = 'breakpoint_hold'
RELEASED_KEY = 'breakpoint_released'

PRE_HOOKS = {'CREATE': 'pre-create', 'UPDATE': 'pre-update',
             'DELETE': 'pre-delete'}
IN_PROGRESS = 'IN_PROGRESS'


# The context of the request being served by EngineService.resource_signal.
# Heat replaces the thread's current context with the stack's stored one
# while it loads the stack; a release must re-dispatch with the caller's.
request_context = contextvars.ContextVar('breakpoint_request_context',
                                         default=None)


def _caller_context(rsrc):
    return (request_context.get() or oslo_context.get_current() or
            rsrc.context)


class Parked(check_resource.CancelOperation):
    """Ends a convergence check at a breakpoint; nothing fails."""

    def __init__(self):
        BaseException.__init__(self, 'held at a breakpoint')


def enabled() -> bool:
    return cfg.CONF.breakpoint.enabled


@functools.lru_cache(maxsize=512)
def _parse_marker(marker_json: str) -> tuple:
    env = {'parameter_defaults': {breakpoints.MARKER:
                                  json.loads(marker_json)}}
    return tuple(breakpoints.from_environment(env))


# Where a Stack object keeps what this module worked out for it once: its
# breakpoints (with the marker they were parsed from) and the names of the
# nested stack resources leading to it from the root stack.
_BREAKPOINTS_ATTR = '_breakpoint_parsed'
_PATH_ATTR = '_breakpoint_stack_path'


def stack_breakpoints(stack) -> tuple:
    """The breakpoints recorded in a stack's environment (fast if none)."""
    marker = stack.env.param_defaults.get(breakpoints.MARKER)
    if not marker:
        return ()
    known = getattr(stack, _BREAKPOINTS_ATTR, None)
    if known is not None and known[0] is marker:
        return known[1]
    try:
        found = _parse_marker(json.dumps(marker, sort_keys=True))
    except (breakpoints.BreakpointError, TypeError, ValueError) as exc:
        LOG.error('Ignoring malformed breakpoints of stack %s: %s',
                  stack.id, exc)
        found = ()
    _remember(stack, _BREAKPOINTS_ATTR, (marker, found))
    return found


def _remember(stack, attr, value) -> None:
    try:
        setattr(stack, attr, value)
    except AttributeError:  # an object that takes no attributes
        pass


def _stack_path(stack) -> tuple:
    """The names of the resources leading to ``stack`` from the root.

    Empty for a root stack. A nested stack's path never changes, so it is
    walked (a query per level) once per Stack object; the walk ends at the
    root stack, which also tells :mod:`operations` the root operation.
    """
    if not stack.owner_id:
        return ()
    known = getattr(stack, _PATH_ATTR, None)
    if known is not None:
        return known
    found = ancestry.walk(stack)  # one query instead of one per level
    if found is not None:
        operations.remember_root(stack, found[1], found[2])
        _remember(stack, _PATH_ATTR, found[0])
        return found[0]
    names = []
    parent_name, owner_id = stack.parent_resource_name, stack.owner_id
    while owner_id:
        names.append(parent_name or '')
        parent = stack_objects.Stack.get_by_id(stack.context, owner_id,
                                               show_deleted=True)
        parent_name, owner_id = parent.parent_resource_name, parent.owner_id
    operations.remember_root(stack, parent.id, parent.current_traversal)
    path = tuple(reversed(names))
    _remember(stack, _PATH_ATTR, path)
    return path


def resource_path(rsrc) -> tuple:
    """The resource's names from the root stack down, e.g. (outer, inner)."""
    return _stack_path(rsrc.stack) + (rsrc.name,)


def find_breakpoint(rsrc, action: str, path=None):
    """The breakpoint that holds ``rsrc`` before ``action``, or None."""
    if not enabled():
        return None
    found = stack_breakpoints(rsrc.stack)
    if not found:
        return None
    path = path or resource_path(rsrc)
    for bp in found:
        if bp.matches(path, action.lower()):
            return bp
    return None


def hold_name(rsrc, action: str):
    """What holds ``rsrc`` before ``action`` in this operation, or None.

    The environment's breakpoints, adjusted by what the user said during
    the operation: ``continue`` (nothing more holds), ``continue --to``
    (only its target holds), ``step`` and ``set`` (hold there too),
    ``clear`` (not there).
    """
    if not enabled() or not stack_breakpoints(rsrc.stack):
        return None
    state = operations.current(rsrc.stack)
    mode, targets = state.mode, state.targets
    if mode == operations.CONTINUE:
        return None
    path = resource_path(rsrc)
    name = '/'.join(path)
    kind = targets.get(name)
    if kind in (operations.STEP, operations.SET, operations.RUN_TO):
        return name
    if (targets.get('/'.join(path[:-1])) == operations.STEP_INTO and
            not rsrc.t.required_resource_names()):
        return name
    if mode == operations.RUN_TO or kind == operations.CLEAR:
        return None
    bp = find_breakpoint(rsrc, action, path)
    return bp.name if bp is not None else None


def _is_nested_stack(rsrc) -> bool:
    from heat.engine.resources import stack_resource
    return isinstance(rsrc, stack_resource.StackResource)


def next_resources(rsrc, action: str) -> list:
    """Where a step from ``rsrc`` holds next, as ``(path, kind)`` pairs.

    The resources that wait for it in this operation (for a delete, the
    resources it requires). Stepping from a nested stack resource before
    its create or update steps *into* it: its first resources hold next.
    Stepping past the last resource of a nested stack goes on to the
    parent stack's next resources.
    """
    path = resource_path(rsrc)
    if action != 'DELETE' and _is_nested_stack(rsrc):
        return [('/'.join(path), operations.STEP_INTO)]
    names = _waiting_on(rsrc, action)
    stack = rsrc.stack
    while not names and stack.owner_id:
        path = path[:-1]
        parent = parser.Stack.load(rsrc.context, stack_id=stack.owner_id,
                                   force_reload=True)
        outer = parent.resource_get(stack.parent_resource_name)
        if outer is None:
            break
        names, stack = _waiting_on(outer, action), parent
    return [('/'.join(path[:-1] + (name,)), operations.STEP)
            for name in sorted(names)]


def _waiting_on(rsrc, action: str) -> list:
    if action == 'DELETE':
        # A stack being deleted has an empty template: ask the database.
        by_id = {r.id: name for name, r in
                 resource_objects.Resource.get_all_by_stack(
                     rsrc.context, rsrc.stack.id).items()}
        return [by_id[i] for i in rsrc.requires if i in by_id]
    return [r.name for r in rsrc.stack.dependencies.required_by(rsrc)]


def applies(rsrc, action: str) -> bool:
    """Whether this check would act on the resource for ``action``.

    Mirrors where stock Heat consults pre-* hooks, except that a resource
    *added* by a stack update is held before its create too.
    """
    stack = rsrc.stack
    if stack.adopt_stack_data:
        return False
    if action == 'CREATE':
        return (stack.action == stack.CREATE or
                (stack.action == stack.UPDATE and rsrc.replaces is None))
    if action == 'UPDATE':
        return stack.action == stack.UPDATE
    if action == 'DELETE':
        return (stack.action == stack.DELETE and
                rsrc.action != rsrc.INIT and
                rsrc.state != (rsrc.DELETE, rsrc.COMPLETE))
    return False


def _record(rsrc):
    raw = rsrc.data().get(HOLD_KEY)
    return json.loads(raw) if raw else None


def _set_state(rsrc, action, status, reason, atomic=True) -> bool:
    values = {'action': action, 'status': status,
              'status_reason': reason, 'updated_at': timeutils.utcnow()}
    if atomic:
        if not resource_objects.Resource.select_and_update_by_id(
                rsrc.context, rsrc.id, values, expected_engine_id=None,
                atomic_key=rsrc._atomic_key):
            return False
        rsrc._incr_atomic_key(rsrc._atomic_key)
    else:
        resource_objects.Resource.update_by_id(rsrc.context, rsrc.id,
                                               values)
    rsrc.action, rsrc.status, rsrc.status_reason = action, status, reason
    rsrc.updated_time = values['updated_at']
    return True


def _add_event(rsrc, reason, details=None):
    rpd_id = None
    if details is not None:
        rpd_id = rpd_objects.ResourcePropertiesData.create(
            rsrc.context, details).id
    physical_id = rsrc.resource_id or rsrc.physical_resource_name()
    ev = heat_event.Event(rsrc.context, rsrc.stack, rsrc.action,
                          rsrc.status, reason, physical_id, rpd_id,
                          details, rsrc.name, rsrc.type())
    ev.store()
    rsrc.stack.dispatch_event(ev)


def _show_held(rsrc, name, action, properties, atomic=True, **record):
    """Make the hold visible: state, hook flag, events, notification."""
    hook = PRE_HOOKS[action]
    path = resource_path(rsrc)
    prior = [rsrc.action, rsrc.status, rsrc.status_reason]
    reason = reasons.held(name, action, hook)
    if not _set_state(rsrc, action, IN_PROGRESS, reason, atomic=atomic):
        raise exception.UpdateInProgress(rsrc.name)
    record.update(breakpoint=name, path='/'.join(path), action=action,
                  hook=hook, prior=prior,
                  since=rsrc.updated_time.isoformat())
    rsrc.data_set(HOLD_KEY, json.dumps(record))
    rsrc.trigger_hook(hook)
    # Stock wording first, so `openstack stack hook poll` lists the hold.
    _add_event(rsrc, reasons.NATIVE_PAUSED % {'action': action,
                                              'hook': hook})
    _add_event(rsrc, reason, {
        'breakpoint': name, 'resource': '/'.join(path),
        'action': action, 'hook': hook,
        'properties': inputs.resolved_inputs(properties(), rsrc.stack)})
    LOG.info('Breakpoint %s reached: %s held before %s',
             name, '/'.join(path), action)
    notify.send(rsrc.context, notify.REACHED,
                notify.payload(rsrc, path, action, name))
    return record


def _forget(rsrc, record, atomic=True) -> bool:
    """Put the resource back as it was before the hold."""
    if not _set_state(rsrc, *record['prior'], atomic=atomic):
        return False
    rsrc.data_delete(HOLD_KEY)
    return True


def park_if_required(rsrc, action: str, properties) -> None:
    """Called by a convergence check before it acts on ``rsrc``.

    Returns when the resource may go on; raises :class:`Parked` when it
    must wait at a breakpoint.
    """
    record = _record(rsrc)
    traversal = rsrc.stack.current_traversal
    if record is not None and record.get('traversal') != traversal:
        # A hold left behind by a traversal a newer operation replaced.
        _forget(rsrc, record, atomic=False)
        rsrc.clear_hook(record['hook'])
    if not applies(rsrc, action):
        return
    if rsrc.data().get(RELEASED_KEY) == traversal:
        return
    name = hold_name(rsrc, action)
    if name is None:
        return
    _show_held(rsrc, name, action, properties, traversal=traversal)
    operations.hold_started(rsrc.stack)
    raise Parked()


def hold_cooperatively(rsrc, action, bp):
    """The legacy engine's hold: wait in the stack's task for a release."""
    hook = PRE_HOOKS[action]
    record = _show_held(rsrc, bp.name, action, lambda: rsrc.properties,
                        atomic=False)
    try:
        while rsrc.has_hook(hook):
            yield
    except BaseException:
        rsrc.clear_hook(hook)
        raise
    finally:
        if _record(rsrc) is not None:
            _forget(rsrc, record, atomic=False)


def is_parked(rsrc) -> bool:
    return HOLD_KEY in rsrc.data()


def release(rsrc, details) -> None:
    """Called after Heat cleared a pre-* hook flag for a resource signal."""
    rsrc._data = None
    record = _record(rsrc)
    if record is None or record['hook'] != details.get('unset_hook'):
        return  # a plain native hook: stock Heat has done everything
    how = details.get(reasons.SIGNAL_KEY)
    if how not in reasons.RELEASES:
        how = reasons.RELEASE_HOOK_CLEAR
    convergence = 'traversal' in record
    if convergence:
        # Claim the release: of two racing releases only one wins.
        if not _forget(rsrc, record):
            LOG.info('Breakpoint on %s already released', rsrc.name)
            return
        rsrc.data_set(RELEASED_KEY, record['traversal'])
        operations.hold_ended(rsrc.stack)
        if how == reasons.RELEASE_CONTINUE:
            operations.mark(rsrc.stack)
        elif how == reasons.RELEASE_STEP:
            for path, kind in next_resources(rsrc, record['action']):
                operations.add_targets(rsrc.stack, [path], kind)
    _add_event(rsrc, reasons.released(record['breakpoint'], how))
    path = tuple(record['path'].split('/'))
    notify.send(_caller_context(rsrc), notify.RELEASED,
                notify.payload(rsrc, path, record['action'],
                               record['breakpoint'], released_by=how))
    if convergence:
        _redispatch(rsrc, record)


def _redispatch(rsrc, record) -> None:
    # The caller's context, not the stack's stored one, which cannot
    # authenticate the rest of the traversal.
    cnxt = _caller_context(rsrc)
    stack = parser.Stack.load(cnxt, stack_id=rsrc.stack.id,
                              force_reload=True)
    if stack.current_traversal != record['traversal']:
        LOG.info('Not resuming %s: its operation was superseded',
                 rsrc.name)
        return
    checker = check_resource.CheckResource(
        None, worker_client.WorkerClient(), None, None, {})
    checker.retrigger_check_resource(cnxt, rsrc.id, stack)


def time_elapsed(stack, elapsed: float) -> float:
    """The operation's elapsed time, less its time held at breakpoints."""
    if (not enabled() or cfg.CONF.breakpoint.pause_counts_against_timeout
            or not stack.convergence or not stack_breakpoints(stack)):
        return elapsed
    return elapsed - operations.current(stack).paused()


COMMANDS = (operations.SET, operations.CLEAR, operations.RUN_TO)


def command(rsrc, kind: str) -> dict:
    """Arm, disarm or run to ``rsrc`` in the running operation.

    Nothing is released: ``set`` arms it, ``clear`` disarms it if not
    reached yet, ``to`` makes it the only resource left to hold.
    """
    stack = rsrc.stack
    if not stack.convergence or stack.status != stack.IN_PROGRESS:
        raise exception.NotSupported(
            feature='breakpoint %s outside a running convergence operation'
            % kind)
    path = '/'.join(resource_path(rsrc))
    operations.add_targets(stack, [path], kind)
    if kind == operations.RUN_TO:
        operations.mark(stack, operations.RUN_TO)
    _add_event(rsrc, reasons.commanded(path, kind))
    return {'resource': path, 'command': kind}


def add_event(rsrc, action, status, reason, stock_add_event) -> None:
    """Heat's resource event, with hidden parameter values masked.

    Stock Heat shows an event's resource properties resolved, hidden
    parameters included. On a stack being debugged with breakpoints the
    events are what users read, so there the properties are masked.
    """
    props = rsrc._stored_properties_data
    if props and enabled() and stack_breakpoints(rsrc.stack):
        masked = inputs.mask(props, inputs.hidden_values(rsrc.stack))
        if masked is not props and masked != props:
            rpd_id = rpd_objects.ResourcePropertiesData.create(
                rsrc.context, masked).id
            physical_id = rsrc.resource_id or rsrc.physical_resource_name()
            ev = heat_event.Event(rsrc.context, rsrc.stack, action, status,
                                  reason, physical_id, rpd_id, masked,
                                  rsrc.name, rsrc.type())
            ev.store()
            rsrc.stack.dispatch_event(ev)
            return
    stock_add_event(rsrc, action, status, reason)


DEADLINE_SCAN_SECONDS = 2.0


def watch_deadlines() -> None:
    """In a heat-engine, fail held stacks whose timeout has run out.

    Only when held time counts against the timeout. Nothing runs for a
    parked hold, so every engine looks, now and then, for holds in the
    database whose stack has timed out; which engine parked them does not
    matter, and one that died leaves nothing behind.
    """
    if not (enabled() and cfg.CONF.breakpoint.pause_counts_against_timeout):
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
            models.ResourceData.key == HOLD_KEY)
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
        record = _record(rsrc)
        if (record is None or 'traversal' not in record or
                not _forget(rsrc, record)):
            return
        rsrc.clear_hook(record['hook'])
        operations.hold_ended(stack)
        _add_event(rsrc, reasons.released(record['breakpoint'],
                                          reasons.RELEASE_TIMEOUT))
        stack.mark_failed('Timed out')
    except Exception:
        LOG.exception('Could not time out held stack %s', stack_id)
