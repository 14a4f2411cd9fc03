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
"""How a hold parks a convergence check, and how its release resumes it.

A hold is a row of state in Heat's database, never a waiting thread:

* the convergence check that reaches a breakpoint (:mod:`decision` says
  which) shows the resource ``<ACTION>_IN_PROGRESS`` with a reason naming
  the breakpoint, records the hold in the resource's data, sets Heat's own
  hook flag (so stock ``openstack stack hook clear`` accepts it) and ends
  by raising :class:`Parked`, which Heat's check treats as a cancelled
  operation: nothing fails, nothing propagates, the RPC thread goes back
  to the pool;
* the release (a resource signal ``{"unset_hook": ...}`` served by any
  engine) restores the resource's state, notes that this traversal is
  released and re-dispatches the parked check through Heat's worker RPC;
* a hold whose operation was cancelled or superseded ends at the next
  check of its resource, with an event saying so.

The legacy engine runs a whole stack in one cooperative task, so there
the hold waits in that task, as Heat's own hooks do.
"""

import contextvars
import json

from oslo_context import context as oslo_context
from oslo_log import log as logging
from oslo_utils import timeutils

from heat.common import exception
from heat.db import api as db_api
from heat.engine import check_resource
from heat.objects import resource as resource_objects
from heat.rpc import worker_client

from heat_breakpoint import breakpoints
from heat_breakpoint.engine import decision
from heat_breakpoint.engine import events
from heat_breakpoint.engine import inputs
from heat_breakpoint.engine import operations
from heat_breakpoint.engine import stepping
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
# Holds once the action is over (its data has a ``when`` of these): the
# resource keeps its state, a post-* hook flag releases it.
DONE_WHENS = (breakpoints.AFTER, breakpoints.FAILED)


# The context of the request being served by EngineService.resource_signal.
# Heat replaces the thread's current context with the stack's stored one
# while it loads the stack; a release must re-dispatch with the caller's.
request_context = contextvars.ContextVar('breakpoint_request_context',
                                         default=None)


def _caller_context(rsrc):
    return (request_context.get() or oslo_context.get_current() or
            rsrc.context)


# The check this thread parked last: (resource id, traversal). Heat ends a
# cancelled check by loading the whole stack, to see whether a newer
# traversal started meanwhile and waits on the resource
# (``CheckResource._retrigger_new_traversal``); after a hold one column of
# the stack's row answers that (:func:`newer_traversal_may_wait`).
_parked_check = contextvars.ContextVar('breakpoint_parked_check',
                                       default=None)


class Parked(check_resource.CancelOperation):
    """Ends a convergence check at a breakpoint; nothing fails."""

    def __init__(self):
        BaseException.__init__(self, 'held at a breakpoint')


def _data(rsrc) -> dict:
    """The resource's data, read once per resource object.

    Heat keeps what it read, but not an empty answer: without this, every
    look at a resource without data (most of them) is another query.
    Heat's own ``data_set`` and ``data_delete`` drop what is kept.
    """
    found = rsrc.data()
    if not found and rsrc._data is None and rsrc.id is not None:
        rsrc._data = {}
    return found


def record_of(rsrc):
    """The hold record of a resource, or None."""
    raw = _data(rsrc).get(HOLD_KEY)
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


def hook_of(action: str, when: str = breakpoints.BEFORE) -> str:
    """The stock hook flag a hold sets: post-* once the action is over."""
    if when in DONE_WHENS:
        return 'post-' + action.lower()
    return PRE_HOOKS[action]


def _show_held(rsrc, name, action, properties, atomic=True,
               when=breakpoints.BEFORE, details=None, **record):
    """Make the hold visible: state, hook flag, events, notification.

    Before the action the resource reads ``<ACTION>_IN_PROGRESS``; after
    it, its state stays (``<ACTION>_COMPLETE``) with the hit as reason; on
    its failure it keeps Heat's state and error. ``details``: what the
    hit event carries besides the inputs (attributes, the error).
    """
    hook = hook_of(action, when)
    path = decision.resource_path(rsrc)
    prior = [rsrc.action, rsrc.status, rsrc.status_reason]
    planned = record.get('change')  # a hold on a planned change
    reason = (reasons.held_change(name, action, planned['kind'])
              if planned else reasons.held(name, action, hook, when))
    state = (action, IN_PROGRESS, reason)
    if when == breakpoints.AFTER:
        state = (rsrc.action, rsrc.status, reason)
    elif when == breakpoints.FAILED:
        state = tuple(prior)
    hit = {'breakpoint': name, 'resource': '/'.join(path),
           'action': action, 'hook': hook,
           'properties': inputs.resolved_inputs(properties(), rsrc.stack)}
    if when != breakpoints.BEFORE:
        hit.update(details or {}, when=when)
        record['when'] = when
    # One transaction (Heat's calls below join it): whoever sees the
    # reason finds the record, the hook flag and the events too; and a
    # burst of holds (a step from a resource 55 others wait on) takes the
    # database's write lock once per hold, not six times.
    with db_api.context_manager.writer.using(rsrc.context):
        inputs_id = events.store_details(rsrc, hit)
        if not _set_state(rsrc, *state, atomic=atomic):
            raise exception.UpdateInProgress(rsrc.name)
        record.update(breakpoint=name, path='/'.join(path), action=action,
                      hook=hook, prior=prior, inputs_id=inputs_id,
                      since=rsrc.updated_time.isoformat())
        rsrc.data_set(HOLD_KEY, json.dumps(record))
        rsrc.trigger_hook(hook)
        # Stock wording first, so `openstack stack hook poll` lists it.
        events.record(rsrc, reasons.NATIVE_PAUSED % {'action': action,
                                                     'hook': hook})
        events.record(rsrc, reason, hit, rpd_id=inputs_id)
    LOG.info('Breakpoint %s reached: %s held %s %s',
             name, '/'.join(path), when, action)
    notify.send(rsrc.context, notify.REACHED,
                notify.payload(rsrc, path, action, name))
    return record


def forget(rsrc, record, atomic=True) -> bool:
    """Put the resource back as it was before the hold."""
    if not _set_state(rsrc, *record['prior'], atomic=atomic):
        return False
    rsrc.data_delete(HOLD_KEY)
    return True


def _end_stale(rsrc, record) -> None:
    """End a hold left by an operation a newer one replaced."""
    forget(rsrc, record, atomic=False)
    rsrc.clear_hook(record['hook'])
    how = (reasons.RELEASE_CANCEL
           if decision.root_action(rsrc.stack) == decision.ROLLBACK
           else reasons.RELEASE_SUPERSEDED)
    events.record(rsrc, reasons.released(record['breakpoint'], how))


def park_if_required(rsrc, action: str, properties,
                     eligible: bool = True) -> None:
    """Called by a convergence check before it acts on ``rsrc``.

    Returns when the resource may go on; raises :class:`Parked` when it
    must wait at a breakpoint. ``eligible`` False: the check is not one
    a breakpoint applies to, but a stale hold is still ended.
    """
    record = record_of(rsrc)
    traversal = rsrc.stack.current_traversal
    if record is not None and record.get('traversal') != traversal:
        _end_stale(rsrc, record)
    if not eligible or not decision.applies(rsrc, action):
        return
    if _data(rsrc).get(RELEASED_KEY) == traversal:
        return
    rule = decision.hold_rule(rsrc, action)
    if rule is None:
        return
    park(rsrc, rule, action, properties)


def park(rsrc, rule, action: str, properties, when=breakpoints.BEFORE,
         details=None, **record) -> None:
    """Hold ``rsrc`` by ``rule`` and end the check (raises :class:`Parked`).

    ``record``: what the release of this kind of hold needs besides.
    """
    _show_held(rsrc, decision.held_name(rule, rsrc), action, properties,
               when=when, details=details,
               traversal=rsrc.stack.current_traversal,
               root_traversal=operations.root_operation(rsrc.stack)[1],
               actions=[a.upper() for a in rule.breakpoint.actions],
               source=rule.source, **record)
    operations.hold_started(rsrc.stack)
    _parked_check.set((rsrc.id, rsrc.stack.current_traversal))
    raise Parked()


def newer_traversal_may_wait(rsrc_id, traversal, stack_id) -> bool:
    """Heat ends a cancelled check: may a newer traversal wait on it?

    For the check this thread just parked, the stack's stored traversal
    answers (False while it is still the check's). Any other check: True,
    and Heat loads the stack and looks for itself, as stock.
    """
    if _parked_check.get() != (rsrc_id, traversal):
        return True
    _parked_check.set(None)
    return operations.stored_traversal(stack_id) != traversal


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
        if record_of(rsrc) is not None:
            forget(rsrc, record, atomic=False)


def is_parked(rsrc) -> bool:
    return HOLD_KEY in rsrc.data()


def _run_to_targets(stack) -> str:
    state = operations.read(stack)
    return ', '.join(sorted(
        path for path, kind in state.targets.items()
        if operations.split_kind(kind)[0] == operations.RUN_TO))


def release(rsrc, details) -> None:
    """Called after Heat cleared a pre-* hook flag for a resource signal."""
    rsrc._data = None
    record = record_of(rsrc)
    if record is None or record['hook'] != details.get('unset_hook'):
        return  # a plain native hook: stock Heat has done everything
    how = details.get(reasons.SIGNAL_KEY)
    if how not in reasons.RELEASES:
        how = reasons.RELEASE_HOOK_CLEAR
    convergence = 'traversal' in record
    if convergence:
        # Claim the release: of two racing releases only one wins.
        with db_api.context_manager.writer.using(rsrc.context):
            claimed = forget(rsrc, record)
            if claimed:
                rsrc.data_set(RELEASED_KEY, record['traversal'])
        if not claimed:
            LOG.info('Breakpoint on %s already released', rsrc.name)
            return
        operations.hold_ended(rsrc.stack)
        if how == reasons.RELEASE_CONTINUE:
            operations.mark(rsrc.stack)
        elif how == reasons.RELEASE_STEP:
            by_kind = {}
            for path, kind in stepping.next_resources(
                    rsrc, record['action'],
                    into=record.get('when') not in DONE_WHENS):
                by_kind.setdefault(kind, []).append(path)
            for kind, paths in sorted(by_kind.items()):
                operations.add_targets(rsrc.stack, paths, kind)
        if record.get('when') in DONE_WHENS:
            # After the action or on its failure: see outcomes.
            from heat_breakpoint.engine import outcomes
            outcomes.released(rsrc, record, how)
    shown = how
    if how == reasons.RELEASE_RUN_TO and convergence:
        shown = '%s %s' % (how, _run_to_targets(rsrc.stack))
    events.record(rsrc, reasons.released(record['breakpoint'], shown))
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
    # The stack as loaded for this release, after the hold: the hold's
    # traversal and graph, unless a newer operation began; one column of
    # its row says whether one began since.
    stack = rsrc.stack
    if (stack.current_traversal != record['traversal'] or
            operations.stored_traversal(stack.id) != record['traversal']):
        LOG.info('Not resuming %s: its operation was superseded',
                 rsrc.name)
        return
    checker = check_resource.CheckResource(
        None, worker_client.WorkerClient(), None, None, {})
    checker.retrigger_check_resource(cnxt, rsrc.id, stack)
